import type { HandlerContext, ListQuery } from '../types.js'
import { EXPORT_CHUNK_MS, exportRange } from './event.js'
import { ExportReadBudget } from './export-archive.js'
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
 * The users of one export answer not seen before, in list order, gathered an event at a time. A user's id is
 * its user id when an event of its first upload hour carries one, else `device:<device id>` (how events name
 * an anonymous visitor): decided from that hour alone, so the id does not depend on how many hours one
 * request happened to read. Only the first `room` are wanted: users whose first hour is later than that of
 * the `room` earliest are let go as the answer is read (a user let go comes back only with an earlier
 * hour, whose events all follow), so a busy archive holds a few pages of users, not all of them.
 */
class Newcomers {
  private readonly first = new Map<number, { hour: number; user?: string; device?: string }>()

  constructor(
    private readonly known: ReadonlySet<number>,
    private readonly room: number,
  ) {}

  add(e: AmplitudeExportEvent): void {
    const id = e.amplitude_id
    const hour = uploadHourOf(e)
    if (typeof id !== 'number' || hour === undefined || this.known.has(id)) return
    const seen = this.first.get(id)
    if (seen === undefined || hour < seen.hour) {
      this.first.set(id, { hour, user: e.user_id || undefined, device: e.device_id || undefined })
      if (this.first.size >= 2 * this.room + 1_000) this.letGo()
    } else if (hour === seen.hour) {
      seen.user ??= e.user_id || undefined
      seen.device ??= e.device_id || undefined
    }
  }

  /** The newcomers in list order: upload hour of their first event, then id. */
  list(): SeenVisitor[] {
    const out: SeenVisitor[] = []
    for (const [amplitudeId, { hour, user, device }] of this.first) {
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

  /** Lets go of the users first seen after the hour of the `room`th earliest (never one at that hour). */
  private letGo(): void {
    const hours = [...this.first.values()].map((v) => v.hour).sort((a, b) => a - b)
    const last = hours[this.room - 1]
    if (last === undefined) return
    for (const [id, v] of this.first) if (v.hour > last) this.first.delete(id)
  }
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
  const budget = new ExportReadBudget()
  // A range once too large is never asked for again at that size: growing back after a sparse answer stops
  // below it (else every other request would be refused again).
  let ceiling = MAX_CHUNK_MS
  for (let at = from; at <= to && seen.length < want; ) {
    const found = new Newcomers(known, want - seen.length)
    const asked = chunk
    const part = await exportRange(ctx, at, to, chunk, budget, (e) => found.add(e))
    if (part.chunk < asked) ceiling = part.chunk
    at = part.end + HOUR_MS
    chunk = part.events < SPARSE_EVENTS ? Math.min(ceiling, part.chunk * 2) : part.chunk
    for (const v of found.list()) {
      known.add(v.amplitude_id)
      seen.push(v)
    }
  }
  return seen.slice(q.offset, want)
}
