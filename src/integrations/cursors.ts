/**
 * Remembers provider cursors by position, so reading page N of a cursor-paged provider does not walk
 * pages 1..N-1 again each time. Keys are scoped to one connection and one query; a miss only costs the
 * walk. Bounded, least recently used first out; per process (a cursor is a hint, never the truth).
 */
export class CursorMemory {
  private readonly entries = new Map<string, string>()

  constructor(private readonly capacity = 10_000) {}

  /** The cursor that starts at `offset` for this query, if one was seen. */
  get(scope: string, offset: number): string | undefined {
    const key = `${scope}\u0000${offset}`
    const value = this.entries.get(key)
    if (value !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  /** The nearest remembered cursor at or before `offset`: where a walk should start. */
  nearest(scope: string, offset: number, step: number): { offset: number; cursor: string } | undefined {
    for (let o = offset - (offset % step); o > 0; o -= step) {
      const cursor = this.get(scope, o)
      if (cursor !== undefined) return { offset: o, cursor }
    }
    return undefined
  }

  set(scope: string, offset: number, cursor: string): void {
    const key = `${scope}\u0000${offset}`
    this.entries.delete(key)
    this.entries.set(key, cursor)
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
  }
}

/** One memory for the process, shared by every connection (scopes keep them apart). */
export const cursorMemory = new CursorMemory()
