import { randomUUID } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import { badRequest, ProviderError } from '../../errors.js'
import { EVENT_TYPES, type EventType } from '../../models/analytics.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { getBinary } from './binary.js'
import { amplitudeHosts } from './hosts.js'
import { AMPLITUDE_EVENT_OF, fromAmplitudeEvent, toAmplitudeEvent } from './mappers.js'
import type { AmplitudeExportEvent } from './provider-types.js'
import { readZip } from './zip.js'

const HOUR_MS = 3_600_000
/** The export refuses ranges longer than this. */
const MAX_RANGE_MS = 365 * 24 * HOUR_MS
/** Client clocks run ahead of Amplitude's by a little; an event is never uploaded much before it happened. */
const CLOCK_SKEW_MS = HOUR_MS
/**
 * How late after it happened an event may be uploaded and still be found by an `end_lt` window: SDKs
 * flush queued (offline) events within days. Bounding the upload window is what lets a past window be
 * read at all (the export spans at most 365 days).
 */
export const UPLOAD_LATENESS_MS = 7 * 24 * HOUR_MS

/** `20240501T10`: the export's hour format (UTC). */
export const exportHour = (ms: number) => {
  const iso = new Date(ms).toISOString()
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}`
}

/** The export archive: a zip of `*.json.gz` files, one JSON event per line. */
export function eventsOfExportArchive(zip: Buffer): AmplitudeExportEvent[] {
  const out: AmplitudeExportEvent[] = []
  for (const entry of readZip(zip)) {
    const text = (entry.name.endsWith('.gz') ? gunzipSync(entry.data) : entry.data).toString('utf8')
    for (const line of text.split('\n'))
      if (line.trim() !== '') out.push(JSON.parse(line) as AmplitudeExportEvent)
  }
  return out
}

/**
 * The Export API selects events by upload hour, with no paging: the whole window is read once per page
 * and every filter (event time, visitor, session, type) is applied here, exactly. Since an event is
 * uploaded after it happens, the upload window that starts at `start_gte` (less clock skew) holds every
 * event that happened since `start_gte`; it runs to now, or to `end_lt` plus the upload lateness allowed.
 * `updated_gte` narrows the upload window itself (exactly: it is the upload time).
 */
async function listEvents(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const { start_gte: start, end_lt: end, visitor_id: visitor, session_id: session, type } = q.filters
  if (typeof type === 'string' && !(EVENT_TYPES as readonly string[]).includes(type)) {
    throw badRequest(`type: '${type}' is not an event type; use one of ${EVENT_TYPES.join(', ')}`)
  }
  const starts = [
    start instanceof Date ? start.getTime() - CLOCK_SKEW_MS : undefined,
    q.updated_gte?.getTime(),
  ].filter((v): v is number => v !== undefined)
  if (starts.length === 0) {
    throw badRequest('Amplitude exports events by time window: give start_gte or updated_gte')
  }
  const from = Math.max(...starts)
  const to = Math.min(
    Date.now(),
    end instanceof Date ? end.getTime() + UPLOAD_LATENESS_MS : Number.POSITIVE_INFINITY,
  )
  if (to < from) return []
  if (to - from > MAX_RANGE_MS)
    throw badRequest("Amplitude's export covers at most 365 days; move start_gte later")
  const url = new URL(`${amplitudeHosts(ctx.credentials).analytics}/api/2/export`)
  for (const [k, v] of Object.entries({ ...ctx.rawParams, start: exportHour(from), end: exportHour(to) })) {
    url.searchParams.set(k, v)
  }
  const zip = await getBinary(ctx.client, url, { accept: 'application/zip' })
  if (!zip) return []
  const keep = (e: UnifiedRecord) => {
    const created = (e.created_at as Date | undefined)?.getTime() ?? Number.NaN
    const uploaded = (e.updated_at as Date | undefined)?.getTime() ?? Number.NaN
    if (start instanceof Date && !(created >= start.getTime())) return false
    if (end instanceof Date && !(created < end.getTime())) return false
    if (q.updated_gte && !(uploaded >= q.updated_gte.getTime())) return false
    if (typeof type === 'string' && e.event_type !== type) return false
    if (typeof session === 'string' && e.session_id !== session) return false
    if (typeof visitor === 'string') {
      const raw = e.raw as AmplitudeExportEvent
      if (raw.user_id !== visitor && raw.device_id !== visitor && String(raw.amplitude_id) !== visitor)
        return false
    }
    return true
  }
  const time = (e: UnifiedRecord) => (e.created_at as Date | undefined)?.getTime() ?? 0
  return eventsOfExportArchive(zip)
    .map(fromAmplitudeEvent)
    .filter(keep)
    .sort((a, b) => time(a) - time(b) || String(a.id).localeCompare(String(b.id)))
    .slice(q.offset, q.offset + q.limit)
}

interface HttpApiAnswer {
  readonly code?: number
  readonly events_ingested?: number
}

async function createEvent(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const type = typeof body.event_type === 'string' ? (body.event_type as EventType) : undefined
  const name = (typeof body.name === 'string' && body.name) || (type ? AMPLITUDE_EVENT_OF[type] : undefined)
  if (!name) throw badRequest('name is required (Amplitude has no standard event name for this event_type)')
  if (typeof body.visitor_id !== 'string' || body.visitor_id === '') {
    throw badRequest('visitor_id is required: Amplitude needs a user id for every event')
  }
  const id = randomUUID()
  const event = toAmplitudeEvent(id, name, body, new Date())
  const answer = await ctx.client.json<HttpApiAnswer>({
    method: 'POST',
    path: '/2/httpapi',
    baseUrl: amplitudeHosts(ctx.credentials).ingest,
    // min_id_length 1: unified visitor ids may be shorter than Amplitude's default minimum of 5.
    body: { api_key: ctx.credentials.api_key, events: [event], options: { min_id_length: 1 } },
    idempotent: true,
  })
  if (answer?.events_ingested !== 1) {
    throw new ProviderError(502, `Amplitude ingested ${answer?.events_ingested ?? 0} of 1 events`)
  }
  const created = new Date(event.time as number)
  const { raw: _raw, ...fields } = body
  return {
    ...fields,
    id,
    name,
    event_type: type ?? 'CUSTOM',
    created_at: created,
    raw: { ...event },
  }
}

export const eventHandlers: ObjectHandlers = {
  list: listEvents,
  create: createEvent,
  listParams: ['updated_gte'],
  filters: ['visitor_id', 'session_id', 'type', 'start_gte', 'end_lt'],
}
