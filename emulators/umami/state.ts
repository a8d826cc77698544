import { DAY_MS, hash32, MINUTE_MS, SeededRandom, uuidV4 } from '../kit/index.js'
import { DATA_SPAN_DAYS } from './constants.js'
import type { UmamiRelease } from './units.js'

export interface WebsiteRecord {
  id: string
  name: string
  domain: string | null
  shareId: string | null
  teamId: string | null
  userId: string | null
  createdBy: string
  resetAt: string | null
  createdAt: number
  updatedAt: number
  deletedAt: number | null
}

export interface SessionRecord {
  id: string
  websiteId: string
  hostname: string
  browser: string
  os: string
  device: string
  screen: string
  language: string
  country: string
  region: string
  city: string
  distinctId: string | null
  createdAt: number
}

export interface EventRecord {
  id: string
  websiteId: string
  sessionId: string
  visitId: string
  createdAt: number
  urlPath: string
  urlQuery: string | null
  referrerDomain: string | null
  pageTitle: string | null
  /** 1 pageview, 2 custom event, 5 performance beacon (v3.1.0 src/lib/constants.ts `EVENT_TYPE`). */
  eventType: 1 | 2 | 5
  eventName: string | null
  hostname: string
  tag: string | null
  data: Record<string, unknown> | null
}

export interface UmamiStateOptions {
  readonly seed: number
  readonly websites: number
  /** Sessions of the first website; the others get a tenth. */
  readonly sessions: number
  readonly apiKeys: readonly string[]
  /** Self-hosted login tokens accepted from the start (login issues more). */
  readonly loginTokens: readonly string[]
  readonly user: { readonly username: string; readonly password: string }
  readonly untilMs: number
  /** Whose `/pageviews` unit rules to apply (units.ts); other behaviour is v3.1.0's either way. */
  readonly release: UmamiRelease
}

const PAGES = [
  { path: '/', title: 'Home' },
  { path: '/pricing', title: 'Pricing' },
  { path: '/docs', title: 'Docs' },
  { path: '/blog/launch', title: 'Launch' },
  { path: '/signup', title: 'Sign up' },
  { path: '/contact', title: 'Contact' },
]
const PLACES = [
  { country: 'US', region: 'US-TX', city: 'Austin' },
  { country: 'US', region: 'US-CA', city: 'San Francisco' },
  { country: 'DE', region: 'DE-BE', city: 'Berlin' },
  { country: 'FR', region: 'FR-IDF', city: 'Paris' },
  { country: 'GB', region: 'GB-ENG', city: 'London' },
]
const DEVICES = [
  { device: 'desktop', os: 'Mac OS', browser: 'chrome', screen: '1920x1080' },
  { device: 'desktop', os: 'Windows 10', browser: 'edge', screen: '1536x864' },
  { device: 'mobile', os: 'iOS', browser: 'ios', screen: '390x844' },
  { device: 'mobile', os: 'Android OS', browser: 'chrome', screen: '412x915' },
  { device: 'tablet', os: 'iOS', browser: 'safari', screen: '820x1180' },
]
const REFERRERS = [null, null, 'google.com', 'news.ycombinator.com', 'twitter.com']
const CAMPAIGNS = [null, null, null, 'utm_source=newsletter&utm_medium=email&utm_campaign=spring']
const CUSTOM_EVENTS = ['signup_click', 'download', 'checkout']

/**
 * Everything the emulator holds: websites and, per website, sessions and their events (newest last). The
 * seeded pages, places, devices and referrers are made up; the record shapes follow Umami's tables
 * (umami-software/umami@v3.1.0:prisma/schema.prisma `website`, `session`, `website_event`).
 */
export class UmamiState {
  readonly apiKeys: ReadonlySet<string>
  readonly loginTokens: Set<string>
  readonly user: { readonly username: string; readonly password: string }
  readonly websites = new Map<string, WebsiteRecord>()
  readonly sessions = new Map<string, SessionRecord>()
  readonly events: EventRecord[] = []
  /** Sessions opened by `/api/send`, by website, User-Agent and distinct id. */
  readonly sessionKeys = new Map<string, string>()
  readonly userId: string
  private readonly random: SeededRandom

  constructor(readonly options: UmamiStateOptions) {
    this.apiKeys = new Set(options.apiKeys)
    this.loginTokens = new Set(options.loginTokens)
    this.user = options.user
    this.random = new SeededRandom(hash32(options.seed, 0x0a3a))
    this.userId = uuidV4(this.random)
    for (let i = 0; i < options.websites; i++) {
      const created = options.untilMs - (400 - i) * DAY_MS
      const website: WebsiteRecord = {
        id: uuidV4(this.random),
        name: `Site ${String(i + 1).padStart(3, '0')}`,
        domain: `site${i + 1}.example.com`,
        shareId: null,
        teamId: i % 3 === 2 ? 'b0c1d2e3-0000-4000-8000-00000000a001' : null,
        userId: i % 3 === 2 ? null : this.userId,
        createdBy: this.userId,
        resetAt: null,
        createdAt: created,
        updatedAt: created,
        deletedAt: null,
      }
      this.websites.set(website.id, website)
      if (i === 0) this.seedTraffic(website, options.sessions)
      else if (i < 3) this.seedTraffic(website, Math.floor(options.sessions / 10))
    }
    this.events.sort((a, b) => a.createdAt - b.createdAt)
  }

  /** Sessions of one to six views spread over the data window, some with a custom event. */
  private seedTraffic(website: WebsiteRecord, count: number): void {
    const r = this.random.fork(hash32(website.createdAt))
    const hostname = website.domain ?? 'example.com'
    for (let s = 0; s < count; s++) {
      const start = this.options.untilMs - r.int(1, DATA_SPAN_DAYS * 24 * 60) * MINUTE_MS
      const place = r.pick(PLACES)
      const device = r.pick(DEVICES)
      const session: SessionRecord = {
        id: uuidV4(r),
        websiteId: website.id,
        hostname,
        ...device,
        language: r.pick(['en-US', 'de-DE', 'fr-FR']),
        ...place,
        distinctId: r.chance(0.3) ? `u_${r.int(1, 500)}` : null,
        createdAt: start,
      }
      this.sessions.set(session.id, session)
      const visitId = uuidV4(r)
      const referrer = r.pick(REFERRERS)
      const campaign = r.pick(CAMPAIGNS)
      const views = r.int(1, 6)
      let at = start
      for (let v = 0; v < views; v++) {
        const page = v === 0 ? r.pick(PAGES) : r.pick(PAGES)
        this.events.push({
          id: uuidV4(r),
          websiteId: website.id,
          sessionId: session.id,
          visitId,
          createdAt: at,
          urlPath: page.path,
          urlQuery: v === 0 ? campaign : null,
          // The tracker sends the previous page as referrer on in-site navigation, so later views carry the
          // site's own host (umami-software/umami@v3.1.0:src/tracker/index.js `currentRef`).
          referrerDomain: v === 0 ? referrer : hostname,
          pageTitle: page.title,
          eventType: 1,
          eventName: null,
          hostname,
          tag: null,
          data: null,
        })
        if (r.chance(0.2)) {
          this.events.push({
            id: uuidV4(r),
            websiteId: website.id,
            sessionId: session.id,
            visitId,
            createdAt: at + 5_000,
            urlPath: page.path,
            urlQuery: null,
            referrerDomain: null,
            pageTitle: page.title,
            eventType: 2,
            eventName: r.pick(CUSTOM_EVENTS),
            hostname,
            tag: null,
            data: null,
          })
        }
        at += r.int(10, 300) * 1000
      }
    }
  }

  newId(): string {
    return uuidV4(this.random)
  }

  liveWebsite(id: string): WebsiteRecord | undefined {
    const w = this.websites.get(id)
    return w && w.deletedAt === null ? w : undefined
  }
}
