import type { ProjectData } from '../state.js'
import type { PersonRecord } from '../store/persons.js'
import type { SessionRecord } from '../store/sessions.js'
import { type HogQLColumn, type HogQLTable, range } from './table.js'
import { types, type Value, type ValueType } from './values.js'

const NIL_UUID = '00000000-0000-0000-0000-000000000000'

/**
 * A JSON property as HogQL reads it without a property definition: the raw JSON text with string quotes
 * removed, so numbers come back as strings ("19.99") and a missing key as NULL.
 */
export function propertyText(value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

function columns(map: Record<string, HogQLColumn>): (name: string) => HogQLColumn | undefined {
  return (name) => (Object.hasOwn(map, name) ? map[name] : undefined)
}

function col(type: ValueType, get: (row: number) => Value): HogQLColumn {
  return { type, get }
}

function eventsTable(data: ProjectData): HogQLTable {
  const e = data.events
  const properties = (row: number) => JSON.stringify(e.properties(row))
  const sessionId = (row: number) => propertyText(e.property(row, '$session_id'))
  return {
    name: 'events',
    starColumns: ['uuid', 'event', 'properties', 'timestamp', 'distinct_id', 'elements_chain', 'created_at'],
    column: columns({
      uuid: col(types.uuid(), (r) => e.uuid(r)),
      event: col(types.string(), (r) => e.event(r)),
      distinct_id: col(types.string(), (r) => e.distinctId(r)),
      timestamp: col(types.datetime64(), (r) => e.timestamp(r)),
      created_at: col(types.datetime64(), (r) => e.createdAt(r)),
      properties: col(types.string(), properties),
      person_id: col(types.uuid(), (r) => e.personUuid(r) ?? NIL_UUID),
      elements_chain: col(types.string(), (r) => e.elementsChain(r)),
      $session_id: col(types.string(true), sessionId),
    }),
    jsonKey: (column, key) =>
      column === 'properties' ? col(types.string(true), (r) => propertyText(e.property(r, key))) : undefined,
    rows: () => range(e.count),
    orderedRows: (column, desc) => (column === 'timestamp' ? e.ordered(desc) : undefined),
    // events is partitioned by toYYYYMM(timestamp) and sorted by (team_id, toDate(timestamp), …)
    // (PostHog/posthog@master:posthog/models/event/sql.py `EVENTS_TABLE_SQL`).
    timeKey: { column: 'timestamp', time: (r) => e.timestamp(r) },
  }
}

const text = (v: string | undefined): Value => v ?? null

function sessionsTable(data: ProjectData): HogQLTable {
  const list = data.sessions.list
  const s = (get: (session: SessionRecord) => Value, type: ValueType) =>
    col(type, (row) => get(list[row] as SessionRecord))
  const nullableText = types.string(true)
  const map: Record<string, HogQLColumn> = {
    session_id: s((x) => x.id, types.string()),
    distinct_id: s((x) => x.distinctId, types.string()),
    $start_timestamp: s((x) => x.start, types.datetime64()),
    $end_timestamp: s((x) => x.end, types.datetime64()),
    $session_duration: s((x) => x.durationSeconds, types.int()),
    $urls: s((x) => x.urls, types.stringArray()),
    $num_uniq_urls: s((x) => x.urls.length, types.uint()),
    $entry_current_url: s((x) => text(x.entry?.currentUrl), nullableText),
    $entry_pathname: s((x) => text(x.entry?.pathname), nullableText),
    $entry_hostname: s((x) => text(x.entry?.host), nullableText),
    $end_current_url: s((x) => text(x.exit?.currentUrl), nullableText),
    $end_pathname: s((x) => text(x.exit?.pathname), nullableText),
    $exit_current_url: s((x) => text(x.exit?.currentUrl), nullableText),
    $exit_pathname: s((x) => text(x.exit?.pathname), nullableText),
    $entry_referring_domain: s((x) => text(x.campaign?.referringDomain), nullableText),
    $entry_utm_source: s((x) => text(x.campaign?.utmSource), nullableText),
    $entry_utm_medium: s((x) => text(x.campaign?.utmMedium), nullableText),
    $entry_utm_campaign: s((x) => text(x.campaign?.utmCampaign), nullableText),
    $entry_utm_term: s((x) => text(x.campaign?.utmTerm), nullableText),
    $entry_utm_content: s((x) => text(x.campaign?.utmContent), nullableText),
    $entry_gclid: s((x) => text(x.campaign?.gclid), nullableText),
    $entry_fbclid: s((x) => text(x.campaign?.fbclid), nullableText),
    $pageview_count: s((x) => x.pageviews, types.uint()),
    $autocapture_count: s((x) => x.autocaptures, types.uint()),
    $screen_count: s((x) => x.screens, types.uint()),
    $channel_type: s((x) => x.channelType, types.string()),
    $is_bounce: s((x) => x.isBounce, types.bool(true)),
    $last_external_click_url: s(() => null, nullableText),
    $vitals_lcp: s(() => null, types.float(true)),
  }
  map.id = map.session_id as HogQLColumn
  map.duration = map.$session_duration as HogQLColumn
  return {
    name: 'sessions',
    starColumns: ['session_id', 'distinct_id', '$start_timestamp', '$end_timestamp', '$session_duration'],
    column: columns(map),
    rows: () => range(list.length),
    orderedRows: (column, desc) => (column === '$start_timestamp' ? data.sessions.byStart(desc) : undefined),
    // The sessions table is keyed by a time-ordered (UUIDv7) session id, and PostHog turns `$start_timestamp`
    // bounds into bounds on it (PostHog/posthog@master:posthog/hogql/database/schema/sessions_v2.py).
    timeKey: { column: '$start_timestamp', time: (r) => (list[r] as SessionRecord).start },
  }
}

function personsTable(data: ProjectData): HogQLTable {
  const list = data.persons.list
  const p = (row: number) => list[row] as PersonRecord
  return {
    name: 'persons',
    starColumns: ['id', 'created_at', 'properties', 'is_identified'],
    column: columns({
      id: col(types.uuid(), (r) => p(r).uuid),
      created_at: col(types.datetime64(), (r) => p(r).createdAt),
      properties: col(types.string(), (r) => JSON.stringify(p(r).properties)),
      is_identified: col(types.bool(), (r) => p(r).isIdentified),
    }),
    jsonKey: (column, key) =>
      column === 'properties'
        ? col(types.string(true), (r) => propertyText(p(r).properties[key]))
        : undefined,
    rows: () => range(list.length),
  }
}

/** The tables HogQL can query for one project. */
export function posthogTables(data: ProjectData): (name: string) => HogQLTable | undefined {
  return (name) => {
    if (name === 'events') return eventsTable(data)
    if (name === 'sessions') return sessionsTable(data)
    if (name === 'persons') return personsTable(data)
    return undefined
  }
}
