import { hash32, MINUTE_MS, SeededRandom } from '../kit/index.js'
import { DATA_SPAN_DAYS } from './constants.js'

export interface TeamRecord {
  readonly id: string
  readonly name: string
  readonly api_available: boolean
}

export interface SiteRecord {
  /** Internal, increasing: the order sites are listed in. */
  readonly seq: number
  domain: string
  timezone: string
  teamId: string
  customProperties: string[]
  trackerId: string
  /**
   * Configured custom-event goals. `event:goal` reports and filters know only these; other event names
   * are recorded and show under `event:name` (plausible/analytics@d5a94c98:lib/plausible/stats/filters/
   * query_parser.ex preload_goals_and_revenue, validate_filtered_goals_exist).
   */
  goals: string[]
  /** The domain before the last rename, which the Stats API still answers to (routes/query.ts). */
  domainChangedFrom?: string
}

export interface VisitEvent {
  readonly name: string
  readonly at: number
  readonly page: string
  readonly revenue?: { currency: string; amount: number }
  /** Custom properties as stored (`meta.key`/`meta.value`), after the Events API's trimming. */
  readonly props?: Readonly<Record<string, string>>
}

/** One visit (Plausible's session): the attributes it was counted with and its events. */
export interface VisitRecord {
  readonly visitorId: string
  readonly start: number
  readonly end: number
  readonly entryPage: string
  readonly exitPage: string
  readonly source: string
  readonly referrer: string
  readonly utmMedium: string
  readonly utmSource: string
  readonly utmCampaign: string
  readonly device: string
  readonly browser: string
  readonly os: string
  readonly country: string
  readonly countryName: string
  readonly region: string
  readonly regionName: string
  readonly city: string
  readonly cityName: string
  readonly events: VisitEvent[]
}

export interface PlausibleStateOptions {
  readonly seed: number
  readonly sites: number
  /** Visits of the first site; the second gets a tenth. */
  readonly visits: number
  readonly apiKeys: readonly string[]
  /** Keys that also hold the `sites:provision:*` scope (Sites API writes). */
  readonly provisionKeys: readonly string[]
  /** `cloud` (plausible.io, Enterprise code) or `community` (CE: no Sites API). */
  readonly edition: 'cloud' | 'community'
  /** Whether requests without X-Forwarded-For come from a data-centre address (a server's). */
  readonly senderInDataCentre: boolean
  readonly untilMs: number
}

const PAGES = ['/', '/pricing', '/docs', '/blog/launch', '/register']
const PLACES = [
  {
    country: 'US',
    countryName: 'United States',
    region: 'US-CA',
    regionName: 'California',
    city: '5391959',
    cityName: 'San Francisco',
  },
  {
    country: 'DE',
    countryName: 'Germany',
    region: 'DE-BE',
    regionName: 'Berlin',
    city: '2950159',
    cityName: 'Berlin',
  },
  {
    country: 'EE',
    countryName: 'Estonia',
    region: 'EE-37',
    regionName: 'Harjumaa',
    city: '588409',
    cityName: 'Tallinn',
  },
  {
    country: 'GB',
    countryName: 'United Kingdom',
    region: 'GB-ENG',
    regionName: 'England',
    city: '2643743',
    cityName: 'London',
  },
]
const DEVICES = [
  { device: 'Desktop', browser: 'Chrome', os: 'Mac' },
  { device: 'Desktop', browser: 'Firefox', os: 'Windows' },
  { device: 'Mobile', browser: 'Safari', os: 'iOS' },
  { device: 'Tablet', browser: 'Chrome', os: 'Android' },
]
const SOURCES = [
  { source: 'Direct / None', referrer: '', utmMedium: '', utmSource: '', utmCampaign: '' },
  { source: 'Google', referrer: 'google.com', utmMedium: '', utmSource: '', utmCampaign: '' },
  { source: 'Newsletter', referrer: '', utmMedium: 'email', utmSource: 'newsletter', utmCampaign: 'spring' },
]
const GOALS = ['Signup', 'File Download', 'Outbound Link: Click']

export class PlausibleState {
  readonly apiKeys: ReadonlySet<string>
  readonly provisionKeys: ReadonlySet<string>
  readonly teams: TeamRecord[] = [
    { id: 'team_main', name: 'Acme', api_available: true },
    { id: 'team_agency', name: 'Agency', api_available: true },
  ]
  readonly sites = new Map<string, SiteRecord>()
  readonly visits = new Map<string, VisitRecord[]>()
  private seq = 0
  private readonly random: SeededRandom

  constructor(readonly options: PlausibleStateOptions) {
    this.apiKeys = new Set(options.apiKeys)
    this.provisionKeys = new Set(options.provisionKeys)
    this.random = new SeededRandom(hash32(options.seed, 0x91a5))
    for (let i = 0; i < options.sites; i++) {
      const site = this.addSite(
        `site${String(i + 1).padStart(4, '0')}.example.com`,
        i % 4 === 3 ? 'Europe/Berlin' : 'Etc/UTC',
        i % 5 === 4 ? 'team_agency' : 'team_main',
      )
      if (i === 0) this.seedVisits(site, options.visits)
      else if (i === 1) this.seedVisits(site, Math.floor(options.visits / 10))
    }
  }

  addSite(domain: string, timezone: string, teamId: string): SiteRecord {
    const site: SiteRecord = {
      seq: ++this.seq,
      domain,
      timezone,
      teamId,
      customProperties: [],
      trackerId: `pa-${hash32(this.seq, this.options.seed).toString(36).padStart(8, '0')}`,
      // 'Outbound Link: Click' is recorded by the seeded visits but is not configured as a goal.
      goals: ['Signup', 'File Download'],
    }
    this.sites.set(domain, site)
    this.visits.set(domain, [])
    return site
  }

  private seedVisits(site: SiteRecord, count: number): void {
    const r = this.random.fork(site.seq)
    const list = this.visits.get(site.domain) as VisitRecord[]
    for (let v = 0; v < count; v++) {
      const start = this.options.untilMs - r.int(1, DATA_SPAN_DAYS * 24 * 60) * MINUTE_MS
      const pages = Array.from({ length: r.int(1, 5) }, () => r.pick(PAGES))
      const events: VisitEvent[] = pages.map((page, i) => ({
        name: 'pageview',
        at: start + i * 45_000,
        page,
      }))
      if (r.chance(0.25)) events.push({ name: r.pick(GOALS), at: start + 20_000, page: pages[0] as string })
      const end = Math.max(...events.map((e) => e.at))
      list.push({
        visitorId: `v${r.int(1, Math.max(1, Math.floor(count * 0.7)))}`,
        start,
        end,
        entryPage: pages[0] as string,
        exitPage: pages[pages.length - 1] as string,
        ...r.pick(SOURCES),
        ...r.pick(DEVICES),
        ...r.pick(PLACES),
        events,
      })
    }
    list.sort((a, b) => a.start - b.start)
  }

  /** Sites in listing order (newest first, as Plausible lists them). */
  orderedSites(): SiteRecord[] {
    return [...this.sites.values()].sort((a, b) => b.seq - a.seq)
  }
}
