import { badRequest } from '../errors.js'

/**
 * How many records a connector may walk forward from the nearest remembered cursor to reach an offset.
 * Reading pages in order never walks (each page leaves the cursor for the next); jumping far ahead of
 * everything read so far would cost one provider call per page skipped, so it is refused instead.
 */
export const MAX_CURSOR_WALK = 10_000

/** Where a walk towards an offset starts: a remembered cursor, or the beginning of the listing. */
export interface WalkStart {
  readonly offset: number
  readonly cursor: string | undefined
}

/** The remembered cursors of one scope, their offsets kept sorted for binary search. */
class ScopeCursors {
  readonly offsets: number[] = []
  readonly cursors = new Map<number, string>()

  /** Index of the first offset greater than `offset`. */
  private upperBound(offset: number): number {
    let lo = 0
    let hi = this.offsets.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.offsets[mid] as number) <= offset) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** The largest remembered offset at or below `offset`. */
  floor(offset: number): number | undefined {
    const i = this.upperBound(offset)
    return i > 0 ? this.offsets[i - 1] : undefined
  }

  set(offset: number, cursor: string): void {
    if (!this.cursors.has(offset)) this.offsets.splice(this.upperBound(offset), 0, offset)
    this.cursors.set(offset, cursor)
  }

  delete(offset: number): void {
    if (!this.cursors.delete(offset)) return
    this.offsets.splice(this.upperBound(offset) - 1, 1)
  }
}

/**
 * Remembers provider cursors by position, so reading page N of a cursor-paged provider does not walk
 * pages 1..N-1 again each time. Keys are scoped to one connection and one query; a miss only costs the
 * walk. Bounded, least recently used first out; per process (a cursor is a hint, never the truth).
 * Finding the nearest cursor below an offset is a binary search, whatever the offset.
 */
export class CursorMemory {
  /** Every entry as `scope\0offset`, in least-recently-used order (a Map keeps insertion order). */
  private readonly recency = new Map<string, { scope: string; offset: number }>()
  private readonly scopes = new Map<string, ScopeCursors>()

  constructor(private readonly capacity = 10_000) {}

  private touch(scope: string, offset: number): void {
    const key = `${scope}\u0000${offset}`
    this.recency.delete(key)
    this.recency.set(key, { scope, offset })
  }

  /** The cursor that starts at `offset` for this query, if one was seen. */
  get(scope: string, offset: number): string | undefined {
    const cursor = this.scopes.get(scope)?.cursors.get(offset)
    if (cursor !== undefined) this.touch(scope, offset)
    return cursor
  }

  /**
   * The nearest remembered cursor at or before `offset` (above 0): where a walk should start. Every
   * connector remembers a cursor only where a walk may start from it, so any remembered one will do.
   */
  nearest(scope: string, offset: number): { offset: number; cursor: string } | undefined {
    const found = this.scopes.get(scope)?.floor(offset)
    if (found === undefined || found <= 0) return undefined
    const cursor = this.get(scope, found)
    return cursor === undefined ? undefined : { offset: found, cursor }
  }

  /**
   * Where to start walking to `offset`: the nearest remembered cursor, else the beginning. Refuses with a
   * 400 naming `offset` when that start is more than `maxWalk` records behind it, before any provider call.
   */
  walkStart(scope: string, offset: number, maxWalk = MAX_CURSOR_WALK): WalkStart {
    const start: WalkStart = this.nearest(scope, offset) ?? { offset: 0, cursor: undefined }
    if (offset - start.offset > maxWalk) {
      throw badRequest(
        `offset: ${offset} is too far ahead for this provider, which pages by cursor: the nearest page ` +
          `read so far starts at ${start.offset}, and at most ${maxWalk} records are skipped to reach an ` +
          'offset; read the pages in order (offset 0, then offset + limit) to go further',
      )
    }
    return start
  }

  set(scope: string, offset: number, cursor: string): void {
    let cursors = this.scopes.get(scope)
    if (!cursors) {
      cursors = new ScopeCursors()
      this.scopes.set(scope, cursors)
    }
    cursors.set(offset, cursor)
    this.touch(scope, offset)
    if (this.recency.size > this.capacity) this.evictOldest()
  }

  private evictOldest(): void {
    const oldest = this.recency.entries().next().value
    if (!oldest) return
    const [key, { scope, offset }] = oldest
    this.recency.delete(key)
    const cursors = this.scopes.get(scope)
    cursors?.delete(offset)
    if (cursors?.offsets.length === 0) this.scopes.delete(scope)
  }
}

/** One memory for the process, shared by every connection (scopes keep them apart). */
export const cursorMemory = new CursorMemory()
