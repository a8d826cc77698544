import { randomUUID } from 'node:crypto'
import { DAY_MS, SeededRandom, uuidV4 } from '../kit/index.js'

export interface MixpanelEventRecord {
  event: string
  /** `time` in milliseconds here; the export answers seconds unless `time_in_ms=true`. */
  properties: Record<string, unknown> & { time: number; distinct_id: string; $insert_id: string }
}

export interface MixpanelProfileRecord {
  $distinct_id: string
  $properties: Record<string, unknown>
}

export interface MixpanelStateOptions {
  readonly seed: number
  readonly projectId: string
  readonly projectToken: string
  readonly serviceAccount: { readonly username: string; readonly secret: string }
  readonly events: number
  readonly profiles: number
  readonly untilMs: number
  readonly enagePageSize: number
  /** The project's time zone (IANA name), as `/api/app/me` reports it. */
  readonly timezone: string
  /** A project created before 2023-01-01: event `time` stored, and export dates read, in `timezone`. */
  readonly legacyLocalTime: boolean
  /** How long a profile update takes to become readable through `/api/query/engage`. */
  readonly profileLagMs: number
}

/** A profile update accepted by `/engage` and not yet readable. */
interface PendingProfileUpdate {
  readonly visibleAt: number
  readonly apply: () => void
}

const NAMES = [
  '$mp_web_page_view',
  '$mp_web_page_view',
  '$mp_web_page_view',
  'Signed up',
  'Purchase',
  '$mp_click',
  'Logged in',
]
const PLACES = [
  { code: 'US', region: 'Texas', city: 'Austin' },
  { code: 'DE', region: 'Berlin', city: 'Berlin' },
  { code: 'FR', region: 'Île-de-France', city: 'Paris' },
  { code: 'IN', region: 'Karnataka', city: 'Bengaluru' },
]
const BROWSERS = ['Chrome', 'Firefox', 'Safari']
const OSES = ['Mac OS X', 'Windows', 'iOS', 'Android']
const PAGES = ['/', '/pricing', '/docs', '/signup', '/blog/launch']
const FIRST = ['Ann', 'Bo', 'Chen', 'Dana', 'Eli', 'Fay']
const LAST = ['Lee', 'Ng', 'Okafor', 'Smith', 'Wang']

const noZone = (ms: number) => new Date(ms).toISOString().slice(0, 19)

export class MixpanelState {
  /**
   * Events in the order they were ingested, not by time: the export's line order is not documented
   * (https://developer.mixpanel.com/reference/raw-event-export says nothing of it), so this emulator
   * streams them unsorted and a client that pages by position must sort them itself.
   */
  readonly events: MixpanelEventRecord[] = []
  readonly profiles = new Map<string, MixpanelProfileRecord>()
  /** Engage result sets by session id: the query they answer. */
  readonly engageSessions = new Map<string, string>()
  readonly projectId: string
  readonly projectToken: string
  readonly serviceAccount: { readonly username: string; readonly secret: string }
  readonly engagePageSize: number
  readonly timezone: string
  readonly legacyLocalTime: boolean
  readonly profileLagMs: number
  private readonly pendingProfiles: PendingProfileUpdate[] = []

  constructor(o: MixpanelStateOptions) {
    this.timezone = o.timezone
    this.legacyLocalTime = o.legacyLocalTime
    this.profileLagMs = o.profileLagMs
    this.projectId = o.projectId
    this.projectToken = o.projectToken
    this.serviceAccount = o.serviceAccount
    this.engagePageSize = o.enagePageSize
    const r = new SeededRandom(o.seed)
    const from = o.untilMs - 30 * DAY_MS
    const ids = Array.from(
      { length: Math.max(1, o.profiles) },
      (_, i) => `u_${String(i + 1).padStart(4, '0')}`,
    )
    for (const id of ids) {
      const place = r.pick(PLACES)
      const first = r.pick(FIRST)
      const last = r.pick(LAST)
      const created = r.int(from - 30 * DAY_MS, from)
      this.profiles.set(id, {
        $distinct_id: id,
        $properties: {
          $created: noZone(created),
          $email: `${first.toLowerCase()}.${id}@example.com`,
          $first_name: first,
          $last_name: last,
          $last_seen: noZone(r.int(from, o.untilMs)),
          $city: place.city,
          $region: place.region,
          $country_code: place.code,
          $timezone: 'UTC',
          plan: r.pick(['free', 'pro', 'team']),
        },
      })
    }
    for (let i = 0; i < o.events; i++) {
      const id = r.pick(ids)
      const place = r.pick(PLACES)
      const event = r.pick(NAMES)
      const path = r.pick(PAGES)
      const properties: MixpanelEventRecord['properties'] = {
        time: r.int(from, o.untilMs - 1),
        distinct_id: id,
        $insert_id: uuidV4(r),
        $browser: r.pick(BROWSERS),
        $os: r.pick(OSES),
        $current_url: `https://acme.example${path}`,
        $city: place.city,
        $region: place.region,
        mp_country_code: place.code,
        mp_lib: 'web',
      }
      if (event === '$mp_web_page_view') {
        properties.current_page_title = path === '/' ? 'Home' : path.slice(1)
        properties.current_url_path = path
      }
      if (event === 'Purchase') properties.revenue = r.int(5, 200)
      if (r.chance(0.3)) properties.utm_source = r.pick(['newsletter', 'google', 'twitter'])
      this.events.push({ event, properties })
    }
    // "$mp_first_event_time | First Seen | Mixpanel calculated property that represents the time of the
    // user's very first event" (mixpanel/docs@ba22906:docs/data-structure/property-reference/reserved-properties.mdx).
    const firstEvent = new Map<string, number>()
    for (const e of this.events) {
      const { distinct_id: id, time } = e.properties
      firstEvent.set(id, Math.min(firstEvent.get(id) ?? time, time))
    }
    for (const [id, time] of firstEvent) {
      const profile = this.profiles.get(id)
      if (profile) profile.$properties.$mp_first_event_time = noZone(time)
    }
  }

  private dedupeKey(e: MixpanelEventRecord): string {
    return JSON.stringify([e.event, e.properties.time, e.properties.distinct_id, e.properties.$insert_id])
  }

  /**
   * Imports one event. A repeat is stored too: Mixpanel de-duplicates on (event, time, distinct_id,
   * $insert_id) only when it queries ("only one of them will be surfaced in queries":
   * mixpanel/docs@ba22906:reference/import-events.mdx), and "deduplication is not applied to raw data
   * exports" (mixpanel/docs@ba22906:reference/raw-data-export-api.mdx).
   */
  importEvent(e: MixpanelEventRecord): void {
    this.events.push(e)
  }

  /** The events queries count: the first of each (event, time, distinct_id, $insert_id). */
  queryable(): MixpanelEventRecord[] {
    const seen = new Set<string>()
    return this.events.filter((e) => {
      const key = this.dedupeKey(e)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  }

  /**
   * Profile updates are processed asynchronously: `/engage` answers once the update is accepted, and
   * reads see it later ("real-time (less than 1 minute delay)":
   * https://docs.mixpanel.com/docs/tracking-methods/id-management/identifying-users-simplified).
   */
  queueProfileUpdate(apply: () => void, now = Date.now()): void {
    if (this.profileLagMs <= 0) apply()
    else this.pendingProfiles.push({ visibleAt: now + this.profileLagMs, apply })
  }

  /** Applies the profile updates due by `now` (every pending one with `Infinity`), in arrival order. */
  settleProfiles(now = Date.now()): void {
    while (this.pendingProfiles.length > 0 && (this.pendingProfiles[0]?.visibleAt ?? 0) <= now) {
      this.pendingProfiles.shift()?.apply()
    }
  }

  newEngageSession(query: string): string {
    const id = `${Date.now()}-${randomUUID().slice(0, 6).toUpperCase()}`
    this.engageSessions.set(id, query)
    return id
  }
}
