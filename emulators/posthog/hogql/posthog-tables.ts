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

/**
 * An event's person as HogQL resolves `events.person_id` in the team's persons-on-events mode
 * (store/projects.ts `PersonsOnEventsMode`), so the events of an anonymous id merged into a person later are
 * that person's in every mode:
 * - `disabled`: `pdi.person_id`, through an INNER JOIN of `person_distinct_ids` on the distinct id: the person
 *   the distinct id belongs to now; an event whose distinct id has no person (`$process_person_profile:
 *   false`, a deleted person) has no row there, so a query reading `person_id` leaves it out
 *   (PostHog/posthog@11ff0432f427:posthog/hogql/database/schema/events.py `person_id`: `["pdi",
 *   "person_id"]`; PostHog/posthog@c1431f564603:posthog/hogql/database/schema/person_distinct_ids.py
 *   `join_with_person_distinct_ids_table`, INNER JOIN);
 * - the other modes: the id stamped at ingestion unless `person_distinct_id_overrides` holds a newer one for
 *   the distinct id (a merge writes it), modelled as the distinct id's person now, else the stamped id (for a
 *   person-less event the uuid derived from its distinct id), else the nil uuid
 *   (PostHog/posthog@8351d962dd0d:posthog/hogql/database/database.py `create_hogql_database`,
 *   `_use_person_id_from_person_overrides`).
 */
function personIdColumn(data: ProjectData): HogQLColumn {
  const e = data.events
  const person = (row: number) => data.persons.withDistinctId(e.distinctId(row))
  if (data.project.personsOnEventsMode === 'disabled') {
    return {
      type: types.uuid(),
      get: (r) => person(r)?.uuid ?? NIL_UUID,
      innerJoin: (r) => person(r) !== undefined,
    }
  }
  return col(types.uuid(), (r) => person(r)?.uuid ?? e.personUuid(r) ?? NIL_UUID)
}

/**
 * A value of a column a LEFT JOIN found no row for: ClickHouse's default for the type (`join_use_nulls` is
 * off in HogQL: PostHog/posthog@006439298dc4:posthog/hogql/database/database.py, "assumes `join_use_nulls
 * = 0` (the default)"), which is NULL for the nullable session columns.
 */
function missingJoinValue(type: ValueType): Value {
  if (type.nullable) return null
  if (type.kind === 'number' || type.kind === 'bool') return 0
  if (type.kind === 'array') return []
  return type.kind === 'uuid' ? NIL_UUID : ''
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
      person_id: personIdColumn(data),
      elements_chain: col(types.string(), (r) => e.elementsChain(r)),
      $session_id: col(types.string(true), sessionId),
    }),
    jsonKey: (column, key) =>
      column === 'properties' ? col(types.string(true), (r) => propertyText(e.property(r, key))) : undefined,
    // `session.<column>`: HogQL's events-to-sessions lazy join, a LEFT JOIN on `$session_id`
    // (PostHog/posthog@006439298dc4:posthog/hogql/database/database.py `events.fields["session"]`,
    // PostHog/posthog@0011d5503e8b:posthog/hogql/database/schema/sessions_v2.py
    // `join_events_table_to_sessions_table_v2`). Web analytics breaks events down by it
    // (PostHog/posthog@0011d5503e8b:posthog/hogql_queries/web_analytics/stats_table.py `INITIAL_UTM_SOURCE`).
    join: (chain) => {
      if (chain.length !== 2 || chain[0] !== 'session') return undefined
      const sessionColumn = sessionColumns()
      const column = Object.hasOwn(sessionColumn, chain[1] as string)
        ? sessionColumn[chain[1] as string]
        : undefined
      if (!column) return undefined
      return col(column.type, (r) => {
        const id = sessionId(r)
        const session = id === null ? undefined : data.sessions.get(id)
        return session ? column.get(session) : missingJoinValue(column.type)
      })
    },
    rows: () => range(e.count),
    orderedRows: (column, desc) => (column === 'timestamp' ? e.ordered(desc) : undefined),
    // events is partitioned by toYYYYMM(timestamp) and sorted by (team_id, toDate(timestamp), …)
    // (PostHog/posthog@master:posthog/models/event/sql.py `EVENTS_TABLE_SQL`).
    timeKey: { column: 'timestamp', time: (r) => e.timestamp(r) },
  }
}

const text = (v: string | undefined): Value => v ?? null

interface SessionColumn {
  readonly type: ValueType
  get(session: SessionRecord): Value
}

const sc = (type: ValueType, get: (session: SessionRecord) => Value): SessionColumn => ({ type, get })

/**
 * The sessions table's columns (PostHog/posthog@0011d5503e8b:posthog/hogql/database/schema/sessions_v2.py
 * `LAZY_SESSIONS_FIELDS`), each a function of one session; built per query, as date-time types name the
 * query's zone.
 */
function sessionColumns(): Record<string, SessionColumn> {
  const nullableText = types.string(true)
  const map: Record<string, SessionColumn> = {
    session_id: sc(types.string(), (x) => x.id),
    distinct_id: sc(types.string(), (x) => x.distinctId),
    $start_timestamp: sc(types.datetime64(), (x) => x.start),
    $end_timestamp: sc(types.datetime64(), (x) => x.end),
    $session_duration: sc(types.int(), (x) => x.durationSeconds),
    $urls: sc(types.stringArray(), (x) => x.urls),
    $num_uniq_urls: sc(types.uint(), (x) => x.urls.length),
    $entry_current_url: sc(nullableText, (x) => text(x.entry?.currentUrl)),
    $entry_pathname: sc(nullableText, (x) => text(x.entry?.pathname)),
    $entry_hostname: sc(nullableText, (x) => text(x.entry?.host)),
    $end_current_url: sc(nullableText, (x) => text(x.exit?.currentUrl)),
    $end_pathname: sc(nullableText, (x) => text(x.exit?.pathname)),
    $exit_current_url: sc(nullableText, (x) => text(x.exit?.currentUrl)),
    $exit_pathname: sc(nullableText, (x) => text(x.exit?.pathname)),
    $entry_referring_domain: sc(nullableText, (x) => text(x.entryCampaign?.referringDomain)),
    $entry_utm_source: sc(nullableText, (x) => text(x.entryCampaign?.utmSource)),
    $entry_utm_medium: sc(nullableText, (x) => text(x.entryCampaign?.utmMedium)),
    $entry_utm_campaign: sc(nullableText, (x) => text(x.entryCampaign?.utmCampaign)),
    $entry_utm_term: sc(nullableText, (x) => text(x.entryCampaign?.utmTerm)),
    $entry_utm_content: sc(nullableText, (x) => text(x.entryCampaign?.utmContent)),
    $entry_gclid: sc(nullableText, (x) => text(x.entryCampaign?.gclid)),
    $entry_fbclid: sc(nullableText, (x) => text(x.entryCampaign?.fbclid)),
    $pageview_count: sc(types.uint(), (x) => x.pageviews),
    $autocapture_count: sc(types.uint(), (x) => x.autocaptures),
    $screen_count: sc(types.uint(), (x) => x.screens),
    $channel_type: sc(types.string(), (x) => x.channelType),
    $is_bounce: sc(types.bool(true), (x) => x.isBounce),
    $last_external_click_url: sc(nullableText, () => null),
    $vitals_lcp: sc(types.float(true), () => null),
  }
  map.id = map.session_id as SessionColumn
  map.duration = map.$session_duration as SessionColumn
  return map
}

function sessionsTable(data: ProjectData): HogQLTable {
  const list = data.sessions.list
  const map: Record<string, HogQLColumn> = {}
  for (const [name, c] of Object.entries(sessionColumns())) {
    map[name] = col(c.type, (row) => c.get(list[row] as SessionRecord))
  }
  return {
    name: 'sessions',
    // `SELECT *` leaves out the table's `avoid_asterisk_fields` (sessions_v2.py, as above).
    starColumns: ['session_id', 'distinct_id', '$start_timestamp', '$end_timestamp', '$session_duration'],
    column: columns(map),
    rows: () => range(list.length),
    orderedRows: (column, desc) => (column === '$start_timestamp' ? data.sessions.byStart(desc) : undefined),
    // The sessions table is keyed by a time-ordered (UUIDv7) session id, and PostHog turns `$start_timestamp`
    // bounds into bounds on it (PostHog/posthog@master:posthog/hogql/database/schema/sessions_v2.py).
    timeKey: { column: '$start_timestamp', time: (r) => (list[r] as SessionRecord).start },
  }
}

/**
 * `person_distinct_ids`: which person each distinct id belongs to now (`distinct_id`, `person_id`; the
 * latest version of each row of ClickHouse's `person_distinct_id2`, deleted ones left out).
 * PostHog/posthog@006778d4e4ad:posthog/hogql/database/schema/person_distinct_ids.py
 * (`PERSON_DISTINCT_IDS_FIELDS`, `select_from_person_distinct_ids_table`).
 */
function personDistinctIdsTable(data: ProjectData): HogQLTable {
  const pairs = [...data.persons.distinctIdPairs()]
  return {
    name: 'person_distinct_ids',
    starColumns: ['distinct_id', 'person_id'],
    column: columns({
      distinct_id: col(types.string(), (r) => (pairs[r] as readonly [string, PersonRecord])[0]),
      person_id: col(types.string(), (r) => (pairs[r] as readonly [string, PersonRecord])[1].uuid),
    }),
    rows: () => range(pairs.length),
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
    if (name === 'person_distinct_ids') return personDistinctIdsTable(data)
    if (name === 'events') return eventsTable(data)
    if (name === 'sessions') return sessionsTable(data)
    if (name === 'persons') return personsTable(data)
    return undefined
  }
}
