import type { EventType } from '../../models/analytics.js'
import type { UnifiedRecord } from '../../models/index.js'
import {
  bodyString,
  metadataOfProperties,
  metadataPropertiesOf,
  num,
  rawOf,
  str,
  UTM_PARAMETERS,
  utmFieldsOf,
} from '../analytics-values.js'
import type { AmplitudeExportEvent, AmplitudeUserData } from './provider-types.js'

const HOUR_MS = 3_600_000

/**
 * The export serves an upload hour from 3 hours after it starts ("data sent between 8 and 9 PM begins
 * loading at 9 PM and is available via the Export API at 11 PM": amplitude.com/docs/apis/analytics/export).
 */
export const EXPORT_DELAY_MS = 3 * HOUR_MS

/** When an event uploaded at `uploaded` became readable through the export. */
export function exportAvailableAt(uploaded: Date | undefined): Date | undefined {
  return uploaded && new Date(Math.floor(uploaded.getTime() / HOUR_MS) * HOUR_MS + EXPORT_DELAY_MS)
}

const PAGE_URL = '[Amplitude] Page URL'
const PAGE_TITLE = '[Amplitude] Page Title'

/** providers.md 12.1, Amplitude column (browser SDK default events). */
const EVENT_TYPE_OF: Readonly<Record<string, EventType>> = {
  '[Amplitude] Page Viewed': 'PAGE_VIEW',
  '[Amplitude] Screen Viewed': 'SCREEN_VIEW',
  '[Amplitude] Element Clicked': 'CLICK',
  '[Amplitude] Form Submitted': 'FORM_SUBMIT',
  '[Amplitude] File Downloaded': 'FILE_DOWNLOAD',
  '[Amplitude] Page Scrolled': 'SCROLL',
  session_start: 'SESSION_START',
  revenue_amount: 'PURCHASE',
}

export const AMPLITUDE_EVENT_OF: Readonly<Partial<Record<EventType, string>>> = Object.fromEntries(
  Object.entries(EVENT_TYPE_OF).map(([name, type]) => [type, name]),
)

/**
 * Revenue lives in event properties: HTTP V2 takes `price`/`quantity`/`revenue`/`currency` at the top
 * of an event and Amplitude stores them as `$price`, `$quantity`, `$revenue` and `$currency`; the
 * export has no top-level revenue. `$revenue` is price × quantity when a price was sent.
 */
export function revenueOf(ep: Readonly<Record<string, unknown>>): number | undefined {
  const revenue = num(ep.$revenue)
  if (revenue !== undefined) return revenue
  const price = num(ep.$price)
  return price === undefined ? undefined : price * (num(ep.$quantity) ?? 1)
}

export function eventTypeOfAmplitudeEvent(
  e: Pick<AmplitudeExportEvent, 'event_type' | 'event_properties'>,
): EventType {
  return EVENT_TYPE_OF[e.event_type] ?? (revenueOf(e.event_properties ?? {}) ? 'PURCHASE' : 'CUSTOM')
}

/**
 * Visitor ids: an identified user is its `user_id`; an anonymous one (no `user_id`, so Amplitude knows it
 * by its device) is `device:<device_id>`, which the visitor endpoints accept too, so an event's
 * visitor_id always fetches its visitor.
 */
export const DEVICE_VISITOR_PREFIX = 'device:'

export function visitorIdOf(e: Pick<AmplitudeExportEvent, 'user_id' | 'device_id'>): string | undefined {
  const user = str(e.user_id)
  if (user) return user
  const device = str(e.device_id)
  return device ? `${DEVICE_VISITOR_PREFIX}${device}` : undefined
}

/** A unified visitor id as Amplitude's identity: `{ user_id }` or `{ device_id }`. */
export function amplitudeIdentityOf(id: string): { user_id: string } | { device_id: string } {
  return id.startsWith(DEVICE_VISITOR_PREFIX) && id.length > DEVICE_VISITOR_PREFIX.length
    ? { device_id: id.slice(DEVICE_VISITOR_PREFIX.length) }
    : { user_id: id }
}

/** `2024-05-01 10:00:00.123000` (UTC, microseconds) or ISO-8601. */
export function fromAmplitudeTime(v: unknown): Date | undefined {
  if (typeof v !== 'string') return undefined
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(v)
  if (!m) return undefined
  const d = new Date(`${m[1]}T${m[2]}${(m[3] ?? '').slice(0, 4)}${m[4] ?? 'Z'}`)
  return Number.isNaN(d.getTime()) ? undefined : d
}

let countryCodes: Map<string, string> | undefined

/** Withdrawn or reserved codes Intl still names (DD is "Germany", UK "United Kingdom"): not ISO 3166-1 today. */
const NOT_CURRENT = new Set([
  'AN',
  'BU',
  'CS',
  'DD',
  'DY',
  'EU',
  'EZ',
  'FX',
  'HV',
  'NH',
  'NT',
  'QO',
  'RH',
  'SU',
  'TP',
  'UK',
  'UN',
  'VD',
  'YD',
  'YU',
  'ZR',
  'XA',
  'XB',
  'XK',
])

/** Amplitude stores full English country names; the ISO code comes from the same names Intl uses. */
export function countryCodeOf(name: string | undefined): string | undefined {
  if (!name) return undefined
  if (!countryCodes) {
    countryCodes = new Map()
    const names = new Intl.DisplayNames(['en'], { type: 'region' })
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b)
        if (NOT_CURRENT.has(code)) continue
        try {
          const n = names.of(code)
          if (n && n !== code && !countryCodes.has(n.toLowerCase())) countryCodes.set(n.toLowerCase(), code)
        } catch {
          // Not a region code.
        }
      }
    }
  }
  return countryCodes.get(name.toLowerCase())
}

const MAPPED_PROPS = new Set([
  PAGE_URL,
  PAGE_TITLE,
  'referrer',
  ...UTM_PARAMETERS,
  '$revenue',
  '$price',
  '$quantity',
  '$currency',
])

/**
 * An exported event. Its id is `$insert_id` when the sender gave one (so an event created through
 * Unigate keeps the id it was given), else Amplitude's `uuid`. `updated_at` is when the event became
 * readable through the export (see `exportAvailableAt`), so `updated_gte` polling never skips an event
 * that was uploaded before a poll but exported after it.
 * time, the time the export is keyed by.
 */
export function fromAmplitudeEvent(e: AmplitudeExportEvent): UnifiedRecord {
  const ep = e.event_properties ?? {}
  const up = e.user_properties ?? {}
  const pick = (k: string) => str(ep[k]) ?? str(up[k])
  const web = (e.platform ?? '').toLowerCase() === 'web'
  const sessionId = num(e.session_id)
  return {
    id: str(e.$insert_id) ?? str(e.uuid),
    name: e.event_type,
    event_type: eventTypeOfAmplitudeEvent(e),
    property_id: str(e.app),
    visitor_id: visitorIdOf(e),
    session_id: sessionId !== undefined && sessionId !== -1 ? String(sessionId) : undefined,
    created_at: fromAmplitudeTime(e.event_time),
    updated_at: exportAvailableAt(fromAmplitudeTime(e.server_upload_time)),
    page_url: str(ep[PAGE_URL]),
    page_title: str(ep[PAGE_TITLE]),
    page_referrer: pick('referrer'),
    device: str(e.device_type) ?? str(e.device_family),
    // On the web, Amplitude records the browser in os_name.
    browser: web ? str(e.os_name) : undefined,
    os: web ? undefined : str(e.os_name),
    country: str(e.country),
    country_code: countryCodeOf(str(e.country)),
    region: str(e.region),
    city: str(e.city),
    value: revenueOf(ep),
    currency: str(ep.$currency),
    ...utmFieldsOf(pick),
    metadata: metadataOfProperties(ep, (k) => MAPPED_PROPS.has(k)),
    raw: { ...e },
  }
}

/**
 * An HTTP V2 event. `insert_id` is our generated id: Amplitude drops a repeat within 7 days, so the
 * call is safe to retry.
 */
export function toAmplitudeEvent(
  insertId: string,
  eventType: string,
  body: Readonly<Record<string, unknown>>,
  now: Date,
): Record<string, unknown> {
  const s = (k: string) => bodyString(body, k)
  const eventProperties = metadataPropertiesOf(body)
  const props: Array<[string, string | undefined]> = [
    [PAGE_URL, s('page_url')],
    [PAGE_TITLE, s('page_title')],
    ['referrer', s('page_referrer')],
    ...UTM_PARAMETERS.map((k): [string, string | undefined] => [k, s(k)]),
  ]
  for (const [k, v] of props) if (v !== undefined) eventProperties[k] = v
  const created = s('created_at') ? new Date(s('created_at') as string) : now
  const session = s('session_id')
  const visitor = s('visitor_id')
  const out: Record<string, unknown> = {
    ...(visitor ? amplitudeIdentityOf(visitor) : {}),
    event_type: eventType,
    time: created.getTime(),
    insert_id: insertId,
    event_properties: eventProperties,
    session_id: session && /^\d+$/.test(session) ? Number(session) : undefined,
    os_name: s('browser') ?? s('os'),
    device_model: s('device'),
    country: s('country'),
    region: s('region'),
    city: s('city'),
    revenue: typeof body.value === 'number' ? body.value : undefined,
    currency: s('currency'),
  }
  Object.assign(out, rawOf(body))
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out
}

/** `2024-03-14` (a day) or a full time. */
const dayOrTime = (v: unknown): Date | undefined =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T00:00:00Z`) : fromAmplitudeTime(v)

/**
 * A user from User Activity. `first_used`/`last_used` are only days; the activity's `events` are the
 * user's latest ("direction" defaults to latest: dashboard-rest.md, User Activity), so the newest of
 * them is the exact last sighting.
 */
export function fromAmplitudeUser(
  id: string,
  user: AmplitudeUserData | undefined,
  latestEvents: readonly Pick<AmplitudeExportEvent, 'event_time'>[] = [],
): UnifiedRecord {
  const props = user?.properties ?? {}
  const times = latestEvents
    .map((e) => fromAmplitudeTime(e.event_time)?.getTime())
    .filter((t): t is number => t !== undefined)
  return {
    id,
    email: str(props.email),
    name: str(props.name),
    country: str(user?.country),
    country_code: countryCodeOf(str(user?.country)),
    city: str(user?.city),
    language: str(user?.language),
    first_seen_at: dayOrTime(user?.first_used),
    last_seen_at: times.length > 0 ? new Date(Math.max(...times)) : dayOrTime(user?.last_used),
    total_sessions: num(user?.num_sessions),
    total_events: num(user?.num_events),
    metadata: metadataOfProperties(props, (k) => k === 'email' || k === 'name'),
    raw: user ? { ...user } : undefined,
  }
}

/** `user_properties.$set` for `/identify`: email and name as plain properties, plus metadata and raw. */
export function toAmplitudeUserProperties(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const set = metadataPropertiesOf(body)
  for (const [k, v] of Object.entries(rawOf(body))) if (k !== 'user_id') set[k] = v
  for (const k of ['email', 'name']) if (typeof body[k] === 'string') set[k] = body[k]
  return set
}
