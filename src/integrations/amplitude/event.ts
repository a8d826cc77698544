import { randomUUID } from 'node:crypto'
import { badRequest, ProviderAnswerTooLargeError, ProviderError, ProviderTimeoutError } from '../../errors.js'
import type { EventType } from '../../models/analytics.js'
import type { UnifiedRecord } from '../../models/index.js'
import { eventTypeFilter } from '../analytics-values.js'
import { refuseCutStrings } from '../string-limits.js'
import type { HandlerContext, ListQuery, ObjectHandlers, WriteBody } from '../types.js'
import { getBinary } from './binary.js'
import { ExportReadBudget, readExportArchive } from './export-archive.js'
import { amplitudeHosts } from './hosts.js'
import { AMPLITUDE_STRINGS } from './limits.js'
import {
  AMPLITUDE_EVENT_OF,
  amplitudeIdentityOf,
  EXPORT_DELAY_MS,
  fromAmplitudeEvent,
  toAmplitudeEvent,
} from './mappers.js'
import type { AmplitudeExportEvent } from './provider-types.js'

const HOUR_MS = 3_600_000
/**
 * The most upload hours one list reads: "The max period you can query at once is 365 days"
 * (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/export.md). A list reads its window a day at a
 * time, but not more than the export itself would serve at once.
 */
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

/** The upload window one export request covers at first: a day (`T00` to `T23`, as Amplitude suggests). */
export const EXPORT_CHUNK_MS = 24 * HOUR_MS

/**
 * The answers that mean "too much for one request": Amplitude's 400 over 4 GB and 504 on a timeout, an
 * archive over the cap Unigate reads into memory (UNIGATE_PROVIDER_MAX_BODY_BYTES, 32 MiB by default,
 * which a busy project's day of uploads passes long before 4 GB), and Unigate's own provider timeout
 * (UNIGATE_PROVIDER_TIMEOUT_MS, 30 s by default), which a large range's archive can take longer than to arrive.
 */
const isTooLarge = (err: unknown) =>
  err instanceof ProviderAnswerTooLargeError ||
  err instanceof ProviderTimeoutError ||
  (err instanceof ProviderError && (err.status === 400 || err.status === 504))

/**
 * One export request for upload hours [from, to], halving `chunk` (down to an hour) while the range is too
 * large (isTooLarge); its events go to `onEvent` one at a time (see readExportArchive), within `budget`.
 * Answers the chunk size that worked, where the range read ended, and how many events it held.
 */
export async function exportRange(
  ctx: HandlerContext,
  from: number,
  to: number,
  chunk: number,
  budget: ExportReadBudget,
  onEvent: (event: AmplitudeExportEvent) => void,
): Promise<{ chunk: number; end: number; events: number }> {
  for (let size = chunk; ; size = Math.max(HOUR_MS, Math.floor(size / 2 / HOUR_MS) * HOUR_MS)) {
    const end = Math.min(to, from + size - HOUR_MS)
    const url = new URL(`${amplitudeHosts(ctx.credentials).analytics}/api/2/export`)
    for (const [k, v] of Object.entries({
      ...ctx.rawParams,
      start: exportHour(from),
      end: exportHour(end),
    })) {
      url.searchParams.set(k, v)
    }
    try {
      const zip = await getBinary(ctx.client, url, { accept: 'application/zip' })
      const events = zip ? await readExportArchive(zip, budget, onEvent) : 0
      return { chunk: size, end, events }
    } catch (err) {
      if (!isTooLarge(err)) throw err
      if (size === HOUR_MS) {
        // One hour over Unigate's own cap or time: the error names the cap or the time and what raises it.
        if (err instanceof ProviderAnswerTooLargeError || err instanceof ProviderTimeoutError) throw err
        throw new ProviderError(
          (err as ProviderError).status,
          `Amplitude's export refuses one hour (${exportHour(from)}) as too large (its limit is 4 GB and a request time); use Amplitude's Amazon S3 export for this volume`,
        )
      }
    }
  }
}

/**
 * The upload hours [from, to] (UTC, hour starts) a list of `q` reads at `nowMs`, or undefined when none can
 * hold its events. Since an event is uploaded after it happens, the upload window that starts at `start_gte`
 * (less clock skew) holds every event that happened since `start_gte`; it runs to now, or to `end_lt` plus the
 * upload lateness allowed. `updated_gte` narrows the upload window itself: `updated_at` is when the export
 * began serving the event (its upload hour plus the export delay). A window longer than MAX_RANGE_MS is a 400
 * naming the parameter that starts it and the earliest instant it may take.
 */
export function exportWindow(q: ListQuery, nowMs: number): { from: number; to: number } | undefined {
  const { start_gte: start, end_lt: end } = q.filters
  const byStart = start instanceof Date ? start.getTime() - CLOCK_SKEW_MS : undefined
  // updated_at is when the export began serving an event's upload hour, EXPORT_DELAY_MS after it started.
  const byUpdated = q.updated_gte === undefined ? undefined : q.updated_gte.getTime() - EXPORT_DELAY_MS
  if (byStart === undefined && byUpdated === undefined) {
    throw badRequest('Amplitude exports events by time window: give start_gte or updated_gte')
  }
  const first = Math.max(byStart ?? Number.NEGATIVE_INFINITY, byUpdated ?? Number.NEGATIVE_INFINITY)
  const from = Math.floor(first / HOUR_MS) * HOUR_MS
  const last = Math.min(nowMs, end instanceof Date ? end.getTime() + UPLOAD_LATENESS_MS : nowMs)
  const to = Math.floor(last / HOUR_MS) * HOUR_MS
  if (to < from) return undefined
  if (to - from + HOUR_MS <= MAX_RANGE_MS) return { from, to }
  // The hours read are `from`..`to`, so `from` may be no earlier than this (a whole hour, as `to` is).
  const earliest = to + HOUR_MS - MAX_RANGE_MS
  const [param, shift, article] =
    byStart !== undefined && byStart === first
      ? ['start_gte', CLOCK_SKEW_MS, 'a']
      : ['updated_gte', EXPORT_DELAY_MS, 'an']
  const until = end instanceof Date ? 'end_lt plus 7 days of late uploads' : 'now'
  throw badRequest(
    `${param}: Amplitude exports at most 365 days at once, and this list reads the uploads from ${param} ` +
      `to ${until}; give ${article} ${param} at or after ${new Date(earliest + shift).toISOString()}` +
      (end instanceof Date ? ', or an earlier end_lt' : ', or an end_lt'),
  )
}

/**
 * The Export API selects events by upload hour, with no paging, no filters and a 4 GB / time limit per
 * request; data is exported about 2 hours after upload. The upload window is exportWindow's; a poll by
 * `updated_gte` picks up events uploaded before the previous poll but exported after it. The window is read
 * a day of upload hours at a time (less while Amplitude says a range is too large), oldest first, and every
 * filter is applied here.
 * An event uploaded at hour U happened after U minus the lateness allowed, so once the hours read hold the
 * page among events older than that, later hours cannot change it and reading stops.
 */
async function listEvents(ctx: HandlerContext, q: ListQuery): Promise<UnifiedRecord[]> {
  const { start_gte: start, end_lt: end, visitor_id: visitor, session_id: session } = q.filters
  const type = eventTypeFilter(q.filters.type)
  const window = exportWindow(q, Date.now())
  if (!window) return []
  const { from, to } = window
  const wanted = typeof visitor === 'string' ? amplitudeIdentityOf(visitor) : undefined
  const keep = (e: UnifiedRecord) => {
    const created = (e.created_at as Date | undefined)?.getTime() ?? Number.NaN
    const readable = (e.updated_at as Date | undefined)?.getTime() ?? Number.NaN
    if (start instanceof Date && !(created >= start.getTime())) return false
    if (end instanceof Date && !(created < end.getTime())) return false
    if (q.updated_gte && !(readable >= q.updated_gte.getTime())) return false
    if (typeof type === 'string' && e.event_type !== type) return false
    if (typeof session === 'string' && e.session_id !== session) return false
    if (wanted) {
      const raw = e.raw as AmplitudeExportEvent
      if ('device_id' in wanted) return raw.device_id === wanted.device_id
      if (raw.user_id !== visitor && raw.device_id !== visitor && String(raw.amplitude_id) !== visitor)
        return false
    }
    return true
  }
  const want = q.offset + q.limit
  const earliest = new EarliestRecords(want)
  const budget = new ExportReadBudget()
  let chunk = EXPORT_CHUNK_MS
  for (let at = from; at <= to; ) {
    const part = await exportRange(ctx, at, to, chunk, budget, (event) => {
      const record = fromAmplitudeEvent(event)
      if (keep(record)) earliest.add(record)
    })
    chunk = part.chunk
    at = part.end + HOUR_MS
    if (earliest.countBefore(at - UPLOAD_LATENESS_MS) >= want) break
  }
  return earliest.sorted().slice(q.offset, want)
}

/**
 * The `size` earliest records given (by time, then id): what a page up to `size` can hold, however many
 * an export answers. Candidates are gathered and cut back to `size` whenever they pass twice that, so a
 * large archive never holds more than a few pages of records at once.
 */
class EarliestRecords {
  private records: UnifiedRecord[] = []

  constructor(private readonly size: number) {}

  add(record: UnifiedRecord): void {
    this.records.push(record)
    if (this.records.length >= 2 * this.size + 1_000) this.cut()
  }

  /** How many of the earliest are before `ms`: once `size` are, no later event can change the page. */
  countBefore(ms: number): number {
    this.cut()
    return this.records.filter((e) => time(e) < ms).length
  }

  sorted(): UnifiedRecord[] {
    this.cut()
    return this.records
  }

  private cut(): void {
    this.records.sort(byTimeThenId)
    if (this.records.length > this.size) this.records.length = this.size
  }
}

const time = (e: UnifiedRecord) => (e.created_at as Date | undefined)?.getTime() ?? 0
const byTimeThenId = (a: UnifiedRecord, b: UnifiedRecord) =>
  time(a) - time(b) || String(a.id).localeCompare(String(b.id))

interface HttpApiAnswer {
  readonly code?: number
  readonly events_ingested?: number
}

async function createEvent(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const type = typeof body.event_type === 'string' ? (body.event_type as EventType) : undefined
  const name = (typeof body.name === 'string' && body.name) || (type ? AMPLITUDE_EVENT_OF[type] : undefined)
  if (!name) throw badRequest('name is required (Amplitude has no standard event name for this event_type)')
  if (typeof body.visitor_id !== 'string' || body.visitor_id === '') {
    throw badRequest(
      'visitor_id is required: Amplitude needs a user id (or device:<device id>) for every event',
    )
  }
  refuseCutStrings(body, AMPLITUDE_STRINGS)
  const id = randomUUID()
  const event = toAmplitudeEvent(id, name, body, new Date())
  const answer = await ctx.client.json<HttpApiAnswer>({
    method: 'POST',
    path: '/2/httpapi',
    baseUrl: amplitudeHosts(ctx.credentials).ingest,
    // The HTTP V2 API takes the key in the body and no header (amplitude-docs http-v2.md): the secret key
    // stays off the ingestion host.
    authenticate: false,
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
  // In the list's order: the type is refused before the window.
  checkList: (q, nowMs) => {
    eventTypeFilter(q.filters.type)
    exportWindow(q, nowMs)
  },
  create: createEvent,
  listParams: ['updated_gte'],
  filters: ['visitor_id', 'session_id', 'type', 'start_gte', 'end_lt'],
  // The export's window is read hour by hour: a raw start or end would lose to each piece's.
  rawOwned: { start: 'use start_gte and end_lt', end: 'use start_gte and end_lt' },
}
