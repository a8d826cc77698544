import { hash32, MINUTE_MS, SeededRandom } from '../kit/index.js'
import { DATA_SPAN_DAYS } from './constants.js'

export interface SiteRecord {
  readonly seq: number
  readonly id: string
  name: string
  sharing: 'none' | 'private' | 'public'
  sharePassword: string | null
  readonly createdAt: number
  readonly timezone: string
}

/**
 * One pageview as Fathom counts it: whether it opened a visit, was a unique page visit ("visits are
 * unique site visits whilst uniques are unique page visits", https://usefathom.com/api/v1/reports), bounced.
 * Seeded values are made up.
 */
export interface Hit {
  readonly at: number
  readonly fields: Readonly<Record<string, string>>
  readonly visit: boolean
  readonly unique: boolean
  readonly bounce: boolean
  readonly duration: number
}

export interface Conversion {
  readonly at: number
  readonly name: string
  readonly unique: boolean
  /** Cents ("value is returned in cents", https://usefathom.com/api/v1/reports). */
  readonly value: number
  readonly fields: Readonly<Record<string, string>>
}

export interface FathomStateOptions {
  readonly seed: number
  readonly sites: number
  /** Pageviews of the first site; the second gets a tenth. */
  readonly pageviews: number
  /** Tokens with full account access (`*`). */
  readonly apiKeys: readonly string[]
  /** More tokens, each with its abilities (`all-sites-readonly`, `read:{site}`, `manage:{site}`). */
  readonly tokens?: Readonly<Record<string, readonly string[]>>
  readonly untilMs: number
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const PATHS = ['/', '/pricing', '/blog', '/about']
const REFERRERS = ['', 'google.com', 'duckduckgo.com']
const BROWSERS = ['Chrome', 'Firefox', 'Safari']
const COUNTRIES = ['US', 'CA', 'DE', 'GB']
const DEVICES = ['Desktop', 'Phone', 'Tablet']
const SYSTEMS = ['Mac OS X', 'Windows', 'iOS', 'Android']

export class FathomState {
  readonly apiKeys: ReadonlySet<string>
  /** Every accepted token and its abilities. */
  readonly tokens = new Map<string, readonly string[]>()
  readonly sites = new Map<string, SiteRecord>()
  readonly hits = new Map<string, Hit[]>()
  readonly conversions = new Map<string, Conversion[]>()
  private seq = 0
  private readonly random: SeededRandom

  constructor(readonly options: FathomStateOptions) {
    this.apiKeys = new Set(options.apiKeys)
    for (const key of options.apiKeys) this.tokens.set(key, ['*'])
    for (const [token, abilities] of Object.entries(options.tokens ?? {})) this.tokens.set(token, abilities)
    this.random = new SeededRandom(hash32(options.seed, 0xfa7))
    for (let i = 0; i < options.sites; i++) {
      const site = this.addSite(`Site ${i + 1}`, 'none', options.untilMs - (300 - i) * 86_400_000)
      if (i === 0) this.seedTraffic(site, options.pageviews)
      else if (i === 1) this.seedTraffic(site, Math.floor(options.pageviews / 10))
    }
  }

  /** Fathom site ids: 6 to 8 uppercase letters. */
  private newId(): string {
    let id = ''
    do {
      id = Array.from({ length: this.random.int(6, 8) }, () => this.random.pick([...LETTERS])).join('')
    } while (this.sites.has(id))
    return id
  }

  addSite(name: string, sharing: SiteRecord['sharing'], createdAt: number): SiteRecord {
    const site: SiteRecord = {
      seq: ++this.seq,
      id: this.newId(),
      name,
      sharing,
      sharePassword: null,
      createdAt,
      timezone: 'UTC',
    }
    this.sites.set(site.id, site)
    this.hits.set(site.id, [])
    this.conversions.set(site.id, [])
    return site
  }

  private seedTraffic(site: SiteRecord, count: number): void {
    const r = this.random.fork(site.seq)
    const hits = this.hits.get(site.id) as Hit[]
    const conversions = this.conversions.get(site.id) as Conversion[]
    for (let i = 0; i < count; i++) {
      const at = this.options.untilMs - r.int(1, DATA_SPAN_DAYS * 24 * 60) * MINUTE_MS
      const visit = r.chance(0.4)
      const fields = {
        hostname: `${site.name.toLowerCase().replace(/\s+/g, '')}.example.com`,
        pathname: r.pick(PATHS),
        referrer_hostname: r.pick(REFERRERS),
        referrer_pathname: '/',
        browser: r.pick(BROWSERS),
        country_code: r.pick(COUNTRIES),
        device_type: r.pick(DEVICES),
        operating_system: r.pick(SYSTEMS),
        utm_source: r.chance(0.2) ? 'newsletter' : '',
        utm_medium: '',
        utm_campaign: '',
        utm_content: '',
        utm_term: '',
      }
      hits.push({
        at,
        fields,
        visit,
        unique: visit || r.chance(0.5),
        bounce: visit && r.chance(0.4),
        duration: visit ? r.int(5, 600) : 0,
      })
      if (r.chance(0.1)) {
        conversions.push({
          at,
          name: r.pick(['Signup', 'Purchase']),
          unique: r.chance(0.8),
          value: r.int(0, 5) * 999,
          fields,
        })
      }
    }
  }

  orderedSites(): SiteRecord[] {
    return [...this.sites.values()].sort((a, b) => a.seq - b.seq)
  }
}
