import { DAY_MS, type SeededRandom, uuidV7 } from '../../kit/index.js'
import { EventStore, type SeededEvents } from '../store/events.js'
import { type PersonRecord, PersonStore, personUuidFor } from '../store/persons.js'
import {
  type Campaign,
  type PageLocation,
  type SessionProfile,
  SessionRecord,
  SessionStore,
} from '../store/sessions.js'
import {
  DEVICE_WEIGHTS,
  DEVICES,
  FIRST_NAMES,
  GEO_WEIGHTS,
  GEOS,
  LAST_NAMES,
  PAGE_WEIGHTS,
  PAGES,
  PLANS,
  SCREENS,
  SITE_HOST,
  SITE_ORIGIN,
  TRAFFIC,
  TRAFFIC_WEIGHTS,
} from './catalog.js'
import { APP_KIND_WEIGHTS, EVENT_KINDS, PAGEVIEW_KIND, SCREEN_KIND, WEB_KIND_WEIGHTS } from './event-kinds.js'

export interface SeedSize {
  readonly persons: number
  readonly sessions: number
  readonly events: number
}

export interface ProjectDataset {
  readonly events: EventStore
  readonly sessions: SessionStore
  readonly persons: PersonStore
}

interface PersonDraft {
  readonly uuid: string
  readonly distinctIds: string[]
  readonly properties: Record<string, unknown>
  readonly identified: boolean
  readonly device: number
  readonly geo: number
  firstSeen: number
  lastSeen: number
}

const MAX_GAP_MS = 120_000

function draftPersons(
  random: SeededRandom,
  count: number,
  windowStart: number,
  span: number,
  teamId: number,
): PersonDraft[] {
  const drafts: PersonDraft[] = []
  for (let p = 0; p < count; p++) {
    const geo = random.weightedIndex(GEO_WEIGHTS)
    const device = random.weightedIndex(DEVICE_WEIGHTS)
    const identified = random.chance(0.7)
    const anonymousId = uuidV7(windowStart + random.next() * span, random)
    const g = GEOS[geo]!
    const d = DEVICES[device]!
    const properties: Record<string, unknown> = {}
    if (identified) {
      const first = random.pick(FIRST_NAMES)
      const last = random.pick(LAST_NAMES)
      properties.email = [first.toLowerCase(), '.', last.toLowerCase(), p + 1, '@example.com'].join('')
      properties.name = [first, last].join(' ')
      properties.plan = random.pick(PLANS)
    }
    Object.assign(properties, {
      $geoip_country_code: g.countryCode,
      $geoip_country_name: g.countryName,
      $geoip_city_name: g.city,
      $geoip_subdivision_1_name: g.subdivision,
      $geoip_time_zone: g.timeZone,
      $initial_os: d.os,
      $initial_device_type: d.deviceType,
      ...(d.browser ? { $initial_browser: d.browser } : {}),
    })
    // Earlier seeds drew a random person uuid here; the draw stays so the rest of the data is unchanged.
    uuidV7(windowStart, random)
    drafts.push({
      // PostHog derives a new person's uuid from its first distinct id (store/persons.ts `personUuidFor`).
      uuid: personUuidFor(teamId, anonymousId),
      // In link order, as posthog_persondistinctid holds them: the anonymous id came first, `$identify`
      // linked the user's id after it (PostHog/posthog@master:posthog/models/person/person.py).
      distinctIds: identified ? [anonymousId, `user_${p + 1}`] : [anonymousId],
      properties,
      identified,
      device,
      geo,
      firstSeen: Number.POSITIVE_INFINITY,
      lastSeen: Number.NEGATIVE_INFINITY,
    })
  }
  return drafts
}

/** Splits `events` over `sessions` (each gets at least one), unevenly, as real sessions are. */
function eventsPerSession(random: SeededRandom, sessions: number, events: number): Uint32Array {
  const counts = new Uint32Array(sessions)
  const weights = new Float64Array(sessions)
  let total = 0
  for (let s = 0; s < sessions; s++) {
    const w = random.next()
    weights[s] = w * w + 0.05
    total += weights[s] as number
  }
  const extra = events - sessions
  let cumulative = 0
  let given = 0
  for (let s = 0; s < sessions; s++) {
    cumulative += weights[s] as number
    const upTo = s === sessions - 1 ? extra : Math.floor((extra * cumulative) / total)
    counts[s] = 1 + upTo - given
    given = upTo
  }
  return counts
}

const LOCATIONS: readonly PageLocation[] = PAGES.map((p) => ({
  currentUrl: `${SITE_ORIGIN}${p.path}`,
  pathname: p.path,
  host: SITE_HOST,
}))

/** posthog-js records the referrer on web events only; app events carry just the campaign. */
const CAMPAIGNS: readonly { readonly web: Campaign; readonly app: Campaign }[] = TRAFFIC.map((t) => {
  const utm = {
    utmSource: t.utmSource,
    utmMedium: t.utmMedium,
    utmCampaign: t.utmCampaign,
    utmTerm: t.utmTerm,
    utmContent: t.utmContent,
    gclid: t.gclid,
  }
  return { web: { referringDomain: t.referringDomain, ...utm }, app: utm }
})

/** Sessions with the same device, place and source share one profile object. */
class ProfileCache {
  private readonly cache = new Map<number, SessionProfile>()

  get(device: number, geo: number, traffic: number): SessionProfile {
    const key = (device * GEOS.length + geo) * TRAFFIC.length + traffic
    let profile = this.cache.get(key)
    if (!profile) {
      profile = { device: DEVICES[device]!, geo: GEOS[geo]!, traffic: TRAFFIC[traffic]! }
      this.cache.set(key, profile)
    }
    return profile
  }
}

/**
 * Generates one project's persons, sessions and events from `random`: sessions start at random times in
 * the window, each a realistic walk of page views, clicks and custom events; the sessions table is then the
 * aggregate of those events, exactly as PostHog computes it.
 */
export function seedProjectData(
  random: SeededRandom,
  size: SeedSize,
  untilMs: number,
  spanDays: number,
  nextPersonId: () => number,
  teamId: number,
): ProjectDataset {
  const span = spanDays * DAY_MS
  const windowStart = untilMs - span
  const drafts = draftPersons(random.fork(1), size.persons, windowStart, span, teamId)
  const sessionRandom = random.fork(2)
  const eventRandom = random.fork(3)
  const sessionCount = drafts.length === 0 ? 0 : Math.min(size.sessions, size.events)
  const eventCount = sessionCount === 0 ? 0 : size.events

  const starts = new Float64Array(sessionCount)
  for (let s = 0; s < sessionCount; s++)
    starts[s] = Math.floor(windowStart + sessionRandom.next() * (span - DAY_MS))
  starts.sort()
  const counts = eventsPerSession(sessionRandom, sessionCount, eventCount)

  const sessions = new SessionStore()
  const profiles = new ProfileCache()
  const ts = new Float64Array(eventCount)
  const kind = new Uint8Array(eventCount)
  const session = new Uint32Array(eventCount)
  const page = new Uint8Array(eventCount)
  let e = 0
  for (let s = 0; s < sessionCount; s++) {
    const person = drafts[sessionRandom.int(0, drafts.length - 1)]!
    const traffic = sessionRandom.weightedIndex(TRAFFIC_WEIGHTS)
    const profile = profiles.get(person.device, person.geo, traffic)
    const campaign = profile.device.app ? CAMPAIGNS[traffic]!.app : CAMPAIGNS[traffic]!.web
    const start = starts[s] as number
    // An identified person's first visit is anonymous (its events carry the anonymous id, which the later
    // `$identify` linked to the person); later visits send the user's id, as posthog-js does after identify
    // (https://posthog.com/docs/product-analytics/identify). Sessions start in time order, so the first
    // session of a person is the one it has not been seen before.
    const anonymousVisit = !Number.isFinite(person.firstSeen)
    const distinctId = anonymousVisit ? person.distinctIds[0]! : person.distinctIds.at(-1)!
    const record = sessions.add(
      new SessionRecord(uuidV7(start, sessionRandom), distinctId, person.uuid, profile),
    )
    const app = profile.device.app
    let t = start
    let currentPage = app ? 0 : profile.traffic.landingPage
    for (let j = 0; j < (counts[s] as number); j++, e++) {
      let k = app ? SCREEN_KIND : PAGEVIEW_KIND
      if (j > 0) {
        t += eventRandom.int(1500, MAX_GAP_MS)
        k = eventRandom.weightedIndex(app ? APP_KIND_WEIGHTS : WEB_KIND_WEIGHTS)
        if (k === PAGEVIEW_KIND) currentPage = eventRandom.weightedIndex(PAGE_WEIGHTS)
        if (k === SCREEN_KIND) currentPage = eventRandom.int(0, SCREENS.length - 1)
      }
      ts[e] = t
      kind[e] = k
      session[e] = s
      page[e] = currentPage
      const event = EVENT_KINDS[k]!.event
      record.apply(
        app ? { ts: t, event, campaign } : { ts: t, event, location: LOCATIONS[currentPage]!, campaign },
      )
    }
    record.compact()
    person.firstSeen = Math.min(person.firstSeen, start)
    person.lastSeen = Math.max(person.lastSeen, t)
  }

  const persons = new PersonStore()
  const personRandom = random.fork(4)
  for (const d of drafts) {
    const seen = Number.isFinite(d.firstSeen)
    const record: PersonRecord = {
      id: nextPersonId(),
      uuid: d.uuid,
      distinctIds: d.distinctIds,
      properties: d.properties,
      createdAt: seen
        ? d.firstSeen - personRandom.int(0, 5_000)
        : windowStart + Math.floor(personRandom.next() * span),
      ...(seen ? { lastSeenAt: d.lastSeen } : {}),
      isIdentified: d.identified,
    }
    persons.add(record)
  }

  return {
    events: new EventStore(
      sortByTime({ count: eventCount, ts, kind, session, page }),
      sessions.list,
      random.uint32(),
    ),
    sessions,
    persons,
  }
}

/** Reorders the event columns by timestamp (ties keep generation order), as ClickHouse returns them. */
function sortByTime(events: SeededEvents): SeededEvents {
  const { count, ts } = events
  const order = new Uint32Array(count)
  for (let i = 0; i < count; i++) order[i] = i
  order.sort((a, b) => (ts[a] as number) - (ts[b] as number) || a - b)
  const sorted = {
    count,
    ts: new Float64Array(count),
    kind: new Uint8Array(count),
    session: new Uint32Array(count),
    page: new Uint8Array(count),
  }
  for (let i = 0; i < count; i++) {
    const from = order[i] as number
    sorted.ts[i] = ts[from] as number
    sorted.kind[i] = events.kind[from] as number
    sorted.session[i] = events.session[from] as number
    sorted.page[i] = events.page[from] as number
  }
  return sorted
}
