import { createHash } from 'node:crypto'
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
import { instantOfWall } from '../zones.js'
import type { MixpanelExportEvent, MixpanelProfile, MixpanelProject } from './provider-types.js'

/** providers.md 12.1, Mixpanel column: only autocapture names are standard, the rest are custom. */
const EVENT_TYPE_OF: Readonly<Record<string, EventType>> = {
  $mp_web_page_view: 'PAGE_VIEW',
  'Page View': 'PAGE_VIEW',
  $mp_click: 'CLICK',
  $mp_submit: 'FORM_SUBMIT',
  $mp_scroll: 'SCROLL',
}

export const eventTypeOfMixpanelEvent = (name: string): EventType => EVENT_TYPE_OF[name] ?? 'CUSTOM'

/** The native event name a unified type stands for, where Mixpanel has one. */
export const MIXPANEL_EVENT_OF: Readonly<Partial<Record<EventType, string>>> = {
  PAGE_VIEW: '$mp_web_page_view',
  CLICK: '$mp_click',
  FORM_SUBMIT: '$mp_submit',
  SCROLL: '$mp_scroll',
}

/** Properties the unified event carries as fields; the others go to metadata. */
const MAPPED = new Set([
  'time',
  'distinct_id',
  '$insert_id',
  '$current_url',
  'current_page_title',
  '$referrer',
  '$device',
  '$browser',
  '$os',
  'mp_country_code',
  '$region',
  '$city',
  ...UTM_PARAMETERS,
  'revenue',
  'currency',
  'session_id',
])

/** Mixpanel's own properties (`$…`, `mp_…`) and the mapped ones are no custom property. */
const isMappedOrReserved = (k: string) => MAPPED.has(k) || k.startsWith('$') || k.startsWith('mp_')

/**
 * `time` is seconds, or milliseconds when the export was asked with `time_in_ms=true`; anything above
 * 1e11 cannot be seconds (year 5138), so the unit is read from the value.
 */
export function fromMixpanelTime(time: unknown): Date | undefined {
  const t = num(time)
  if (t === undefined) return undefined
  return new Date(t > 1e11 ? t : t * 1000)
}

/**
 * Events without `$insert_id` (old imports) get a stable id from their content, so the same line
 * always maps to the same id.
 */
function idOf(e: MixpanelExportEvent): string {
  const insertId = str(e.properties.$insert_id)
  if (insertId) return insertId
  return `mp-${createHash('sha256').update(JSON.stringify(e)).digest('hex').slice(0, 32)}`
}

/** `timeZone`: the zone `time` is stored in (UTC, or the project zone for projects created before 2023). */
export function fromMixpanelEvent(
  e: MixpanelExportEvent,
  projectId: string,
  timeZone = 'UTC',
): UnifiedRecord {
  const p = e.properties
  const stored = fromMixpanelTime(p.time)
  const created = stored && new Date(instantOfWall(stored.getTime(), timeZone))
  return {
    id: idOf(e),
    name: e.event,
    event_type: eventTypeOfMixpanelEvent(e.event),
    property_id: projectId,
    visitor_id: str(p.distinct_id),
    session_id: str(p.session_id),
    created_at: created,
    updated_at: created,
    page_url: str(p.$current_url),
    page_title: str(p.current_page_title),
    page_referrer: str(p.$referrer),
    device: str(p.$device),
    browser: str(p.$browser),
    os: str(p.$os),
    country_code: str(p.mp_country_code)?.toUpperCase(),
    region: str(p.$region),
    city: str(p.$city),
    value: num(p.revenue),
    currency: str(p.currency),
    ...utmFieldsOf((k) => str(p[k])),
    metadata: metadataOfProperties(p, isMappedOrReserved),
    raw: { ...e },
  }
}

/**
 * An `/import` record. `$insert_id` is our generated id: Mixpanel de-duplicates on it, so a retried
 * import never counts twice. `time` goes in milliseconds (accepted by `/import`).
 */
export function toMixpanelImportEvent(
  id: string,
  name: string,
  body: Readonly<Record<string, unknown>>,
  now: Date,
): MixpanelExportEvent {
  const s = (k: string) => bodyString(body, k)
  const created = s('created_at') ? new Date(s('created_at') as string) : now
  const props = { ...metadataPropertiesOf(body), ...rawOf(body) }
  const pairs: Array<[string, unknown]> = [
    ['$current_url', s('page_url')],
    ['current_page_title', s('page_title')],
    ['$referrer', s('page_referrer')],
    ['$device', s('device')],
    ['$browser', s('browser')],
    ['$os', s('os')],
    ['mp_country_code', s('country_code')?.toUpperCase()],
    ['$region', s('region')],
    ['$city', s('city')],
    ...UTM_PARAMETERS.map((k): [string, unknown] => [k, s(k)]),
    ['session_id', s('session_id')],
    ['revenue', typeof body.value === 'number' ? body.value : undefined],
    ['currency', s('currency')],
  ]
  for (const [k, v] of pairs) if (v !== undefined) props[k] = v
  return {
    event: name,
    properties: {
      ...props,
      time: created.getTime(),
      distinct_id: s('visitor_id') ?? '',
      $insert_id: id,
    },
  }
}

/** Profile dates (`$created`, `$last_seen`) are `YYYY-MM-DDTHH:MM:SS` without a zone: Mixpanel means UTC. */
export function fromMixpanelProfileDate(v: unknown): Date | undefined {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(v)) return undefined
  const d = new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(v) ? v : `${v}Z`)
  return Number.isNaN(d.getTime()) ? undefined : d
}

export function fromMixpanelProfile(profile: MixpanelProfile, projectId: string): UnifiedRecord {
  const p = profile.$properties
  const first = str(p.$first_name)
  const last = str(p.$last_name)
  const created = fromMixpanelProfileDate(p.$created)
  return {
    id: profile.$distinct_id,
    property_id: projectId,
    email: str(p.$email),
    name: str(p.$name) ?? ([first, last].filter(Boolean).join(' ') || undefined),
    country_code: str(p.$country_code)?.toUpperCase(),
    city: str(p.$city),
    timezone: str(p.$timezone),
    // `$created` is whatever the sender set ("not auto-populated"); First Seen is Mixpanel's own
    // `$mp_first_event_time`, the user's very first event (mixpanel/docs@ba22906:docs/data-structure/
    // property-reference/reserved-properties.mdx).
    created_at: created,
    first_seen_at:
      typeof p.$mp_first_event_time === 'number'
        ? fromMixpanelTime(p.$mp_first_event_time)
        : fromMixpanelProfileDate(p.$mp_first_event_time),
    // `$last_seen` is "Updated at": when the profile last changed; it "does not change if the user does a
    // new event" (mixpanel/docs@ba22906:docs/data-structure/user-profiles.mdx), so it is no last sighting.
    updated_at: fromMixpanelProfileDate(p.$last_seen),
    metadata: metadataOfProperties(p, (k) => k.startsWith('$')),
    raw: { ...profile },
  }
}

/** A `$set` for `/engage`: reserved profile properties plus custom ones from metadata and raw. */
export function toMixpanelProfileSet(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const set = metadataPropertiesOf(body)
  for (const [k, v] of Object.entries(rawOf(body))) if (k !== '$distinct_id') set[k] = v
  const pairs: Array<[string, string]> = [
    ['email', '$email'],
    ['name', '$name'],
    ['city', '$city'],
    ['timezone', '$timezone'],
    ['country_code', '$country_code'],
  ]
  for (const [from, to] of pairs) if (typeof body[from] === 'string') set[to] = body[from]
  return set
}

export function fromMixpanelProject(id: string, project: MixpanelProject): UnifiedRecord {
  return {
    id,
    name: str(project.name),
    timezone: str(project.timezone),
    parent_id: str(project.organization_id),
    raw: { ...project },
  }
}
