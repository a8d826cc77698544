import type { HandlerContext, ListQuery } from '../types.js'
import { EXPORT_CHUNK_MS, exportRange } from './event.js'
import { DEVICE_VISITOR_PREFIX, fromAmplitudeTime } from './mappers.js'
import type { AmplitudeExportEvent } from './provider-types.js'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS
/** The window a plain visitor list covers when the engine gave none (it gives `defaultWindowDays`). */
const FALLBACK_WINDOW_DAYS = 30
/**
 * An export answer with fewer events than this is sparse: the next request asks for twice the hours, so a
 * quiet project's month costs a handful of requests instead of thirty. Dense hours keep the day size the
 * event list uses (and exportRange still halves it while Amplitude says a range is too large).
 */
const SPARSE_EVENTS = 50_000
const MAX_CHUNK_MS = 32 * DAY_MS

/** A user the export shows: its Amplitude ID, its unified id and the identity it was seen with. */
export interface SeenVisitor {
  readonly id: string
  readonly amplitude_id: number
  readonly user_id: string | null
  readonly device_id: string | null
  /** The upload hour of its first event in the window: the list's order, with the id. */
  readonly firstHour: number
}

const uploadHourOf = (e: AmplitudeExportEvent) => {
  const t = fromAmplitudeTime(e.server_upload_time)?.getTime()
  return t === undefined ? undefined : Math.floor(t / HOUR_MS) * HOUR_MS
}

/**
 * The users of one export answer not seen before, in list order. A user's id is its user id when an event
 * of its first upload hour carries one, else `device:<device id>` (how events name an anonymous visitor):
 * decided from that hour alone, so the id does not depend on how many hours one request happened to read.
 */
function newcomers(events: readonly AmplitudeExportEvent[], known: ReadonlySet<number>): SeenVisitor[] {
  const firstHour = new Map<number, number>()
  for (const e of events) {
    const hour = uploadHourOf(e)
    if (typeof e.amplitude_id !== 'number' || hour === undefined || known.has(e.amplitude_id)) continue
    firstHour.set(e.amplitude_id, Math.min(hour, firstHour.get(e.amplitude_id) ?? hour))
  }
  const identity = new Map<number, { user?: string; device?: string }>()
  for (const e of events) {
    const id = e.amplitude_id
    if (typeof id !== 'number' || !firstHour.has(id) || uploadHourOf(e) !== firstHour.get(id)) continue
    const seen = identity.get(id) ?? {}
    identity.set(id, {
      user: seen.user ?? (e.user_id || undefined),
      device: seen.device ?? (e.device_id || undefined),
    })
  }
  const out: SeenVisitor[] = []
  for (const [amplitudeId, hour] of firstHour) {
    const { user, device } = identity.get(amplitudeId) ?? {}
    out.push({
      id: user ?? (device ? `${DEVICE_VISITOR_PREFIX}${device}` : String(amplitudeId)),
      amplitude_id: amplitudeId,
      user_id: user ?? null,
      device_id: device ?? null,
      firstHour: hour,
    })
  }
  return out.sort((a, b) => a.firstHour - b.firstHour || a.id.localeCompare(b.id))
}

/**
 * The visitors Amplitude's export shows in the window: every user with an event uploaded from `start_gte`
 * (the engine's default window) until now, in the order they first appear (upload hour, then id). Amplitude
 * has no user listing (User Search needs a term), so this is how a plain visitor list is served. Hours are
 * read oldest first and reading stops once the page is known: a user first seen in a later hour can only
 * come after it.
 */
export async function seenVisitors(ctx: HandlerContext, q: ListQuery): Promise<SeenVisitor[]> {
  const start = q.filters.start_gte
  const fromMs = start instanceof Date ? start.getTime() : Date.now() - FALLBACK_WINDOW_DAYS * DAY_MS
  const from = Math.floor(fromMs / HOUR_MS) * HOUR_MS
  const to = Math.floor(Date.now() / HOUR_MS) * HOUR_MS
  const want = q.offset + q.limit
  const seen: SeenVisitor[] = []
  const known = new Set<number>()
  let chunk = EXPORT_CHUNK_MS
  for (let at = from; at <= to && seen.length < want; ) {
    const part = await exportRange(ctx, at, to, chunk)
    at = part.end + HOUR_MS
    chunk = part.events.length < SPARSE_EVENTS ? Math.min(MAX_CHUNK_MS, part.chunk * 2) : part.chunk
    for (const v of newcomers(part.events, known)) {
      known.add(v.amplitude_id)
      seen.push(v)
    }
  }
  return seen.slice(q.offset, want)
}
