import { randomUUID } from 'node:crypto'
import { badRequest, ProviderError } from '../../errors.js'
import type { EventType } from '../../models/analytics.js'
import type { UnifiedRecord } from '../../models/index.js'
import { eventTypeFilter } from '../analytics-values.js'
import { refuseCutStrings } from '../string-limits.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { addDays, dayIn, daysBetween } from '../zones.js'
import { mixpanelHosts } from './hosts.js'
import { MIXPANEL_EVENT_STRINGS } from './limits.js'
import { fromMixpanelEvent, MIXPANEL_EVENT_OF, toMixpanelImportEvent } from './mappers.js'
import type { MixpanelExportEvent } from './provider-types.js'
import { zonesOf } from './time.js'

/** The export's own ceiling on `limit`. */
export const EXPORT_MAX_LIMIT = 100_000

/** The export answers JSON lines; one line alone parses as an object, no lines as nothing. */
export function parseExportLines(body: unknown): MixpanelExportEvent[] {
  if (body === undefined || body === null || body === '') return []
  if (typeof body === 'object') return [body as MixpanelExportEvent]
  return String(body)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as MixpanelExportEvent)
}

/**
 * The export's window and event type, from the query alone (`nowMs` ends a window without end_lt), or
 * undefined when the window holds nothing yet; a 400 for what the export cannot be asked.
 */
function exportAsked(q: ListQuery, nowMs: number) {
  const start = q.filters.start_gte
  if (!(start instanceof Date)) {
    throw badRequest('Mixpanel exports events by date: give start_gte (and optionally end_lt)')
  }
  const end = q.filters.end_lt instanceof Date ? q.filters.end_lt : new Date(nowMs)
  // A window given the wrong way round is refused before (list-query.ts); one that starts after now and
  // runs to now holds nothing yet, as on every other integration.
  if (end.getTime() <= start.getTime()) return undefined
  return { start, end, type: eventTypeFilter(q.filters.type) }
}

/**
 * What a list of the connection's events asks the export, or undefined when it lists nothing: a property_id
 * that is another project (whose events this connection cannot read), or a window that holds nothing yet.
 */
function listAsked(q: ListQuery, nowMs: number, given: Pick<HandlerContext, 'credentials'>) {
  const property = q.filters.property_id
  if (typeof property === 'string' && property !== given.credentials.project_id) return undefined
  return exportAsked(q, nowMs)
}

/**
 * Raw Event Export: whole days (`from_date`/`to_date`, inclusive, in the export zone: see time.ts), a
 * `limit` but no offset, no cursor and no documented line order. So a page is cut from the window read in
 * day ranges, oldest first, each range sorted here by time then id: a range whose answer reaches the
 * export's `limit` ceiling may be missing lines, so it is split in two and read again (a single day that
 * reaches it fails, naming the cap). Reading stops once the ranges read hold the page.
 */
async function listEvents(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const projectId = ctx.credentials.project_id as string
  const asked = listAsked(q, Date.now(), ctx)
  if (!asked) return []
  const { start, end, type } = asked
  const native = type ? MIXPANEL_EVENT_OF[type] : undefined
  const visitor = q.filters.visitor_id
  const zone = zonesOf(ctx).export
  const query: Record<string, string | number> = {
    ...ctx.rawParams,
    project_id: projectId,
    time_in_ms: 'true',
    limit: EXPORT_MAX_LIMIT,
  }
  // `type` and `visitor_id` are sent as the export's one `event` and `where`: a raw one beside them would
  // be replaced without a word.
  if (native && ctx.rawParams.event !== undefined)
    throw badRequest('raw: event and type both filter the Mixpanel export by `event`; send one or the other')
  if (typeof visitor === 'string' && ctx.rawParams.where !== undefined)
    throw badRequest(
      'raw: where and visitor_id both filter the Mixpanel export by `where`; send one or the other',
    )
  if (native) query.event = JSON.stringify([native])
  if (typeof visitor === 'string') query.where = `properties["distinct_id"]==${JSON.stringify(visitor)}`
  const keep = (e: UnifiedRecord) => {
    const t = (e.created_at as Date | undefined)?.getTime()
    if (t === undefined || t < start.getTime() || t >= end.getTime()) return false
    return !type || native !== undefined || e.event_type === type
  }
  const want = q.offset + q.limit
  const kept: UnifiedRecord[] = []
  const pending: Array<[string, string]> = [[dayIn(start.getTime(), zone), dayIn(end.getTime() - 1, zone)]]
  while (pending.length > 0 && kept.length < want) {
    const [from, to] = pending.shift() as [string, string]
    const body = await ctx.client.json({
      path: '/api/2.0/export',
      baseUrl: mixpanelHosts(ctx.credentials).export,
      query: { ...query, from_date: from, to_date: to },
      headers: { accept: 'text/plain' },
    })
    const lines = parseExportLines(body)
    if (lines.length >= EXPORT_MAX_LIMIT) {
      const days = daysBetween(from, to)
      if (days === 0) {
        throw badRequest(
          `Mixpanel's export answers at most ${EXPORT_MAX_LIMIT} events per request and ${from} holds more; filter by type or visitor_id`,
        )
      }
      const middle = addDays(from, Math.floor(days / 2))
      pending.unshift([from, middle], [addDays(middle, 1), to])
      continue
    }
    kept.push(
      ...withoutRepeats(lines)
        .map((e) => fromMixpanelEvent(e, projectId, zone))
        .filter(keep)
        .sort(byTimeThenId),
    )
  }
  return kept.slice(q.offset, want)
}

/**
 * "Deduplication is not applied to raw data exports": Mixpanel counts one event per (event, time,
 * distinct_id, $insert_id) and the export may answer repeats (mixpanel/docs@ba22906:
 * reference/raw-data-export-api.mdx, reference/import-events.mdx). Repeats share their time, so they
 * always fall in the same day range; the first is kept.
 */
export function withoutRepeats(lines: readonly MixpanelExportEvent[]): MixpanelExportEvent[] {
  const seen = new Set<string>()
  return lines.filter((e) => {
    const p = e.properties
    if (p.$insert_id === undefined || p.$insert_id === null || p.$insert_id === '') return true
    const key = JSON.stringify([e.event, p.time, p.distinct_id, p.$insert_id])
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const timeOf = (e: UnifiedRecord) => (e.created_at as Date | undefined)?.getTime() ?? 0
const byTimeThenId = (a: UnifiedRecord, b: UnifiedRecord) =>
  timeOf(a) - timeOf(b) || String(a.id).localeCompare(String(b.id))

interface ImportAnswer {
  readonly code?: number
  readonly num_records_imported?: number
  readonly status?: string
}

/**
 * `/import` returns no id: ours goes out as `$insert_id`, Mixpanel's de-duplication key, which also
 * makes the call safe to retry.
 */
async function createEvent(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const type = typeof body.event_type === 'string' ? (body.event_type as EventType) : undefined
  const name = (typeof body.name === 'string' && body.name) || (type ? MIXPANEL_EVENT_OF[type] : undefined)
  if (!name) throw badRequest('name is required (Mixpanel has no standard event name for this event_type)')
  refuseCutStrings(body, MIXPANEL_EVENT_STRINGS)
  const id = randomUUID()
  const now = new Date()
  const record = toMixpanelImportEvent(id, name, body, now)
  // Mixpanel's import refuses these times, and its error does not say which event field was wrong.
  const time = record.properties.time as number
  if (!(time >= Date.UTC(1971, 0, 1) && time <= now.getTime() + 3_600_000)) {
    throw badRequest('created_at: Mixpanel accepts events from 1971 up to one hour ahead of now')
  }
  const answer = await ctx.client.json<ImportAnswer>({
    method: 'POST',
    path: '/import',
    baseUrl: mixpanelHosts(ctx.credentials).ingest,
    query: { strict: 1, project_id: ctx.credentials.project_id, ...ctx.rawParams },
    body: [record],
    idempotent: true,
  })
  if (answer?.num_records_imported !== 1) {
    throw new ProviderError(502, `Mixpanel imported ${answer?.num_records_imported ?? 0} of 1 events`)
  }
  // What was sent: `time` goes out as a UTC epoch, whatever zone the export later shows it in.
  return fromMixpanelEvent(record, ctx.credentials.project_id as string)
}

export const eventHandlers: ObjectHandlers = {
  list: listEvents,
  checkList: (q, nowMs, given) => void listAsked(q, nowMs, given),
  create: createEvent,
  listParams: [],
  filters: ['property_id', 'visitor_id', 'type', 'start_gte', 'end_lt'],
  // What the export and import calls set: a raw one would replace Unigate's (or be replaced) unsaid.
  rawOwned: {
    project_id: "Unigate sends the connection's project; use property_id",
    limit: 'Unigate reads the export in pieces it can page with limit and offset',
    from_date: 'use start_gte and end_lt',
    to_date: 'use start_gte and end_lt',
    time_in_ms: 'Unigate reads event times in milliseconds',
    strict: 'Unigate imports events strictly validated',
  },
}
