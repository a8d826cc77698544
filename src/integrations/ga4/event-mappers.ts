import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { WriteBody } from '../types.js'
import type { Ga4MpEvent, Ga4MpPayload } from './provider-types.js'

/** Unified event_type -> GA4 recommended/automatic event name (providers.md 12.1). */
export const GA4_EVENT_NAMES: Readonly<Record<string, string>> = {
  PAGE_VIEW: 'page_view',
  SCREEN_VIEW: 'screen_view',
  CLICK: 'click',
  FORM_SUBMIT: 'form_submit',
  PURCHASE: 'purchase',
  SIGN_UP: 'sign_up',
  LOGIN: 'login',
  SEARCH: 'search',
  VIDEO_PLAY: 'video_start',
  VIDEO_COMPLETE: 'video_complete',
  FILE_DOWNLOAD: 'file_download',
  SCROLL: 'scroll',
  SESSION_START: 'session_start',
  FIRST_VISIT: 'first_visit',
}

/**
 * Names the Measurement Protocol drops silently (Google's "reserved names" list): sending them would
 * answer 2xx and record nothing, so they are refused here instead. `screen_view` is no longer on it
 * (https://developers.google.com/analytics/devguides/collection/protocol/ga4/reference#reserved_names).
 */
const RESERVED_EVENT_NAMES = new Set([
  'ad_activeview',
  'ad_click',
  'ad_exposure',
  'ad_query',
  'ad_reward',
  'adunit_exposure',
  'app_background',
  'app_clear_data',
  'app_exception',
  'app_remove',
  'app_store_refund',
  'app_update',
  'app_upgrade',
  'dynamic_link_app_open',
  'dynamic_link_app_update',
  'dynamic_link_first_open',
  'error',
  'firebase_campaign',
  'firebase_in_app_message_action',
  'firebase_in_app_message_dismiss',
  'firebase_in_app_message_impression',
  'first_open',
  'first_visit',
  'in_app_purchase',
  'notification_dismiss',
  'notification_foreground',
  'notification_open',
  'notification_receive',
  'notification_send',
  'os_update',
  'session_start',
  'user_engagement',
])
const RESERVED_PREFIXES = ['_', 'firebase_', 'ga_', 'google_', 'gtag.']
const NAME_RULE = /^[A-Za-z][A-Za-z0-9_]{0,39}$/
const MAX_PARAMS = 25
/**
 * Longest parameter value: 100 characters, except page_location (1000), page_referrer (420) and
 * page_title (300) (https://support.google.com/analytics/answer/9267744, "Event collection limits").
 */
const MAX_PARAM_VALUE = 100
const MAX_PARAM_VALUE_OF: Readonly<Record<string, number>> = {
  page_location: 1000,
  page_referrer: 420,
  page_title: 300,
}
/** The Measurement Protocol backdates events by at most 72 hours. */
const MAX_BACKDATE_MS = 72 * 3_600_000

/** The GA4 event name for an event_type, or `undefined` for CUSTOM/LOGOUT (GA4 has none). */
export function toGa4EventName(eventType: string | undefined): string | undefined {
  return eventType ? GA4_EVENT_NAMES[eventType] : undefined
}

/** The unified event_type of a GA4 event name; names outside the table are CUSTOM. */
export function fromGa4EventName(name: string): string {
  for (const [type, ga4] of Object.entries(GA4_EVENT_NAMES)) if (ga4 === name) return type
  return 'CUSTOM'
}

function checkName(what: string, name: string): void {
  if (!NAME_RULE.test(name)) {
    throw badRequest(
      `${what} '${name}' is not a GA4 name: start with a letter, then letters, digits or _, at most 40 characters`,
    )
  }
  if (RESERVED_PREFIXES.some((p) => name.startsWith(p))) {
    throw badRequest(`${what} '${name}' uses a prefix GA4 reserves (${RESERVED_PREFIXES.join(', ')})`)
  }
}

function text(body: WriteBody, key: string): string | undefined {
  const v = body[key]
  return typeof v === 'string' && v !== '' ? v : undefined
}

/**
 * Which event a unified body means: `name` when given, else the GA4 name of its event_type. The
 * Measurement Protocol accepts any request and silently drops invalid or reserved events, so those are
 * refused with 400 here rather than "created" and lost.
 */
export function ga4EventNameOf(body: WriteBody): string {
  const eventType = text(body, 'event_type')
  const name = text(body, 'name') ?? toGa4EventName(eventType)
  if (!name) {
    throw badRequest(
      `name is required for event_type ${eventType ?? 'CUSTOM'}: GA4 has no standard event for it`,
    )
  }
  checkName('name', name)
  if (RESERVED_EVENT_NAMES.has(name)) {
    throw badRequest(
      `name '${name}' is collected by GA4 itself; the Measurement Protocol does not accept it from servers`,
    )
  }
  return name
}

/** A parameter's value, checked against the length GA4 keeps for that parameter (`ga4Name`). */
function paramValue(key: string, value: unknown, ga4Name = key): string | number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value === 'boolean') return String(value)
  if (typeof value !== 'string') return undefined
  const max = MAX_PARAM_VALUE_OF[ga4Name] ?? MAX_PARAM_VALUE
  if (value.length > max) {
    throw badRequest(`${key}: GA4 keeps ${ga4Name} values of at most ${max} characters`)
  }
  return value
}

/** `metadata` values are objects (sdk-contract R10); a `{ "value": x }` object carries one GA4 parameter. */
function metadataParams(metadata: unknown): Record<string, string | number> {
  const out: Record<string, string | number> = {}
  if (!metadata || typeof metadata !== 'object') return out
  for (const [key, entry] of Object.entries(metadata as Record<string, unknown>)) {
    if (!entry || typeof entry !== 'object') continue
    const keys = Object.keys(entry)
    // The SDK sends `{}` for every metadata value it was given (R10): there is nothing to send.
    if (keys.length === 0) continue
    const value = paramValue(`metadata.${key}`, (entry as Record<string, unknown>).value, key)
    if (keys.length !== 1 || value === undefined) {
      throw badRequest(
        `metadata.${key}: a GA4 event parameter is one string or number; send it as {"value": ...}`,
      )
    }
    checkName(`metadata key`, key)
    out[key] = value
  }
  return out
}

const FIELD_PARAMS = [
  ['session_id', 'session_id'],
  ['page_url', 'page_location'],
  ['page_title', 'page_title'],
  ['page_referrer', 'page_referrer'],
  ['currency', 'currency'],
  ['utm_source', 'source'],
  ['utm_medium', 'medium'],
  ['utm_campaign', 'campaign'],
  ['utm_term', 'term'],
  ['utm_content', 'content'],
] as const

export interface Ga4Collect {
  readonly payload: Ga4MpPayload
  readonly eventName: string
  readonly createdAt: Date
}

/**
 * The Measurement Protocol request for one unified event. GA4 has no event id and no de-duplication key
 * for events, so the id we generated travels as the `event_id` parameter, where BigQuery exports and
 * custom dimensions can see it.
 */
export function toGa4Collect(body: WriteBody, id: string, now: number = Date.now()): Ga4Collect {
  const eventName = ga4EventNameOf(body)
  const clientId = text(body, 'visitor_id')
  if (!clientId) {
    throw badRequest('visitor_id is required: GA4 needs the client_id of the browser or app instance')
  }
  const params: Record<string, string | number> = {}
  for (const [unified, ga4] of FIELD_PARAMS) {
    const v = paramValue(unified, body[unified], ga4)
    if (v !== undefined) params[ga4] = v
  }
  if (typeof body.value === 'number') params.value = body.value
  Object.assign(params, metadataParams(body.metadata))
  const raw = (body.raw && typeof body.raw === 'object' ? body.raw : {}) as Record<string, unknown>
  if (raw.params && typeof raw.params === 'object') {
    for (const [k, v] of Object.entries(raw.params as Record<string, unknown>)) {
      const value = paramValue(`raw.params.${k}`, v, k)
      if (value !== undefined) params[k] = value
    }
  }
  // Without these GA4 leaves server events out of realtime and engagement reports (providers.md 1.3).
  params.engagement_time_msec ??= 1
  params.event_id = id
  if (Object.keys(params).length > MAX_PARAMS) {
    throw badRequest(
      `GA4 takes at most ${MAX_PARAMS} parameters per event; this event has ${Object.keys(params).length}`,
    )
  }
  const created = typeof body.created_at === 'string' ? new Date(body.created_at) : undefined
  let createdAt = new Date(now)
  if (created && !Number.isNaN(created.getTime())) {
    if (created.getTime() > now + 60_000 || now - created.getTime() > MAX_BACKDATE_MS) {
      throw badRequest('created_at: GA4 accepts events from the last 72 hours only, and none in the future')
    }
    createdAt = created
  }
  const { params: _params, ...top } = raw
  const event: Ga4MpEvent = { name: eventName, params }
  const payload: Ga4MpPayload = {
    ...top,
    client_id: clientId,
    ...(created ? { timestamp_micros: createdAt.getTime() * 1000 } : {}),
    events: [event],
  }
  return { payload, eventName, createdAt }
}

/** The created event as the caller sees it: what was sent, under the id we generated. */
export function fromGa4Collect(
  body: WriteBody,
  collect: Ga4Collect,
  id: string,
  measurementId: string,
): UnifiedRecord {
  const pick = (key: string) => body[key]
  return {
    id,
    name: collect.eventName,
    event_type: text(body, 'event_type') ?? fromGa4EventName(collect.eventName),
    visitor_id: pick('visitor_id'),
    property_id: pick('property_id'),
    session_id: pick('session_id'),
    page_url: pick('page_url'),
    page_title: pick('page_title'),
    page_referrer: pick('page_referrer'),
    value: pick('value'),
    currency: pick('currency'),
    utm_source: pick('utm_source'),
    utm_medium: pick('utm_medium'),
    utm_campaign: pick('utm_campaign'),
    utm_term: pick('utm_term'),
    utm_content: pick('utm_content'),
    metadata: pick('metadata'),
    created_at: collect.createdAt,
    updated_at: collect.createdAt,
    raw: { measurement_id: measurementId, ...collect.payload },
  }
}
