import { badRequest } from '../errors.js'
import { EVENT_TYPES, type EventType } from '../models/analytics.js'

/**
 * The rules every analytics mapper follows between a provider's properties and the unified record, whatever
 * the provider: how a value reads as a unified string or number, and how `metadata` and `raw` travel.
 * Which property maps to which field stays with each provider's mappers.
 */

/** A provider value as a unified string: a non-empty string, or a number as text. */
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined

/** A provider value as a unified number: a finite number only. */
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined

/** A unified write body's field, when it is a non-empty string. */
export const bodyString = (body: Readonly<Record<string, unknown>>, key: string): string | undefined =>
  typeof body[key] === 'string' && body[key] !== '' ? (body[key] as string) : undefined

/** A unified write body's `raw`: the provider's own properties to send as they are (none unless an object). */
export const rawOf = (body: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  body.raw && typeof body.raw === 'object' ? (body.raw as Record<string, unknown>) : {}

/**
 * A unified write body's `metadata` as provider properties. Metadata values are objects (sdk-contract R10),
 * so the SDK sends `{ value: x }`: that unwraps to x; any other value goes as it is.
 */
export function metadataPropertiesOf(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const metadata =
    body.metadata && typeof body.metadata === 'object' ? (body.metadata as Record<string, unknown>) : {}
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(metadata)) {
    out[k] = v && typeof v === 'object' && 'value' in v ? (v as { value: unknown }).value : v
  }
  return out
}

/**
 * Provider properties as unified `metadata`, the way back: each custom property `k: v` becomes
 * `k: { value: v }` (sdk-contract R10), leaving out null values and those `isMapped` says are fields;
 * none at all when nothing is left.
 */
export function metadataOfProperties(
  props: Readonly<Record<string, unknown>>,
  isMapped: (key: string) => boolean,
): Record<string, { value: unknown }> | undefined {
  const out: Record<string, { value: unknown }> = {}
  for (const [k, v] of Object.entries(props))
    if (!isMapped(k) && v !== null && v !== undefined) out[k] = { value: v }
  return Object.keys(out).length > 0 ? out : undefined
}

/** UTM parameters: Amplitude and Mixpanel keep each as a property of its own name, as the unified event does. */
export const UTM_PARAMETERS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const

export type UtmParameter = (typeof UTM_PARAMETERS)[number]

/** The unified UTM fields, each read by `read` from the provider's property of the same name. */
export function utmFieldsOf(
  read: (name: UtmParameter) => string | undefined,
): Record<UtmParameter, string | undefined> {
  return Object.fromEntries(UTM_PARAMETERS.map((name) => [name, read(name)])) as Record<
    UtmParameter,
    string | undefined
  >
}

/**
 * The `type` filter of an event list as the model names it: case and surrounding spaces do not matter, as
 * on every other enum filter (report `type` and `dimension`, group `type`, application `status`); a value
 * outside the model is a 400 naming it. Undefined when no type is asked.
 */
export function eventTypeFilter(value: unknown): EventType | undefined {
  if (typeof value !== 'string') return undefined
  const type = value.trim().toUpperCase()
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw badRequest(`type: '${value}' is not an event type; use one of ${EVENT_TYPES.join(', ')}`)
  }
  return type as EventType
}
