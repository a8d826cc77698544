import { createHash } from 'node:crypto'
import { badRequest } from '../errors.js'

/**
 * How many records a connector may walk forward from the nearest remembered cursor to reach an offset.
 * Reading pages in order never walks (each page leaves the cursor for the next); jumping far ahead of
 * everything read so far would cost one provider call per page skipped, so it is refused instead.
 */
export const MAX_CURSOR_WALK = 10_000

/**
 * The longest provider cursor remembered (characters). Real ones are short tokens or offsets (the longest
 * here, Lever's merged window, a few hundred characters); the provider address is the connection's to
 * choose, though, and an answer may be up to the provider body cap (32 MiB), once per page walked. A longer
 * one is not remembered, in memory nor in the store: the next page walks to it instead, within MAX_CURSOR_WALK.
 */
export const MAX_CURSOR_CHARS = 8_192

/** Where a walk towards an offset starts: a remembered cursor, or the beginning of the listing. */
export interface WalkStart {
  readonly offset: number
  readonly cursor: string | undefined
}

/**
 * How long a remembered cursor is kept after it was last written, here and in the store: a listing read page
 * after page is continued within seconds or minutes, so an hour covers a slow reader while keeping the store
 * to the pages read in the last hour. Past it a page starts from the nearest cursor still kept (Matomo: a
 * new listing as of now), as a page read without the one before it always did.
 */
export const CURSOR_TTL_MS = 3_600_000

/** A remembered cursor, when it is forgotten, and when this process stored it (ms since the epoch). */
interface Remembered {
  readonly cursor: string
  readonly expires: number
  storedAt?: number
}

/** The remembered cursors of one scope, their offsets kept sorted for binary search. */
class ScopeCursors {
  readonly offsets: number[] = []
  readonly cursors = new Map<number, Remembered>()

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

  set(offset: number, remembered: Remembered): void {
    if (!this.cursors.has(offset)) this.offsets.splice(this.upperBound(offset), 0, offset)
    this.cursors.set(offset, remembered)
  }

  delete(offset: number): void {
    if (!this.cursors.delete(offset)) return
    this.offsets.splice(this.upperBound(offset) - 1, 1)
  }
}

/**
 * Remembers provider cursors by position in this process, so reading page N of a cursor-paged provider does
 * not walk pages 1..N-1 again each time. Keys are scoped to one connection and one query; a miss only costs
 * the walk (or a look in the store, see CursorBank). Bounded, least recently used first out, each entry
 * forgotten CURSOR_TTL_MS after it was written. Finding the nearest cursor below an offset is a binary
 * search, whatever the offset.
 */
export class CursorMemory {
  /** Every entry as `scope\0offset`, in least-recently-used order (a Map keeps insertion order). */
  private readonly recency = new Map<string, { scope: string; offset: number }>()
  private readonly scopes = new Map<string, ScopeCursors>()

  constructor(
    private readonly capacity = 10_000,
    private readonly ttlMs = CURSOR_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private touch(scope: string, offset: number): void {
    const key = `${scope}\u0000${offset}`
    this.recency.delete(key)
    this.recency.set(key, { scope, offset })
  }

  /** The cursor that starts at `offset` for this query, if one was seen and has not expired. */
  get(scope: string, offset: number): string | undefined {
    const cursors = this.scopes.get(scope)
    const found = cursors?.cursors.get(offset)
    if (found === undefined) return undefined
    if (found.expires <= this.now()) {
      this.forget(scope, offset)
      return undefined
    }
    this.touch(scope, offset)
    return found.cursor
  }

  /**
   * When this process stored exactly this cursor at `offset` (markStored), if it is still remembered; a
   * cursor set again since, or read from the store, has no such time.
   */
  storedAt(scope: string, offset: number, cursor: string): number | undefined {
    const found = this.scopes.get(scope)?.cursors.get(offset)
    if (found === undefined || found.cursor !== cursor || found.storedAt === undefined) return undefined
    return this.get(scope, offset) === undefined ? undefined : found.storedAt
  }

  /** Notes that the store holds this cursor since `at`, if it is still the one remembered at `offset`. */
  markStored(scope: string, offset: number, cursor: string, at: number): void {
    const found = this.scopes.get(scope)?.cursors.get(offset)
    if (found !== undefined && found.cursor === cursor) found.storedAt = at
  }

  /**
   * The nearest remembered cursor at or before `offset` (above 0): where a walk should start. Every
   * connector remembers a cursor only where a walk may start from it, so any remembered one will do.
   */
  nearest(scope: string, offset: number): { offset: number; cursor: string } | undefined {
    const cursors = this.scopes.get(scope)
    for (;;) {
      const found = cursors?.floor(offset)
      if (found === undefined || found <= 0) return undefined
      const cursor = this.get(scope, found)
      // An expired entry was just forgotten: the next one below may still hold.
      if (cursor !== undefined) return { offset: found, cursor }
    }
  }

  /**
   * Where to start walking to `offset`: the nearest remembered cursor, else the beginning. Refuses with a
   * 400 naming `offset` when that start is more than `maxWalk` records behind it, before any provider call.
   */
  walkStart(scope: string, offset: number, maxWalk = MAX_CURSOR_WALK): WalkStart {
    return checkedWalk(this.nearest(scope, offset), offset, maxWalk)
  }

  /** Remembers a cursor, until `expires` (ms since the epoch) when given, else CURSOR_TTL_MS from now. */
  set(scope: string, offset: number, cursor: string, expires = this.now() + this.ttlMs): void {
    let cursors = this.scopes.get(scope)
    if (!cursors) {
      cursors = new ScopeCursors()
      this.scopes.set(scope, cursors)
    }
    cursors.set(offset, { cursor, expires })
    this.touch(scope, offset)
    if (this.recency.size > this.capacity) this.evictOldest()
  }

  private evictOldest(): void {
    const oldest = this.recency.values().next().value
    if (oldest) this.forget(oldest.scope, oldest.offset)
  }

  private forget(scope: string, offset: number): void {
    this.recency.delete(`${scope}\u0000${offset}`)
    const cursors = this.scopes.get(scope)
    cursors?.delete(offset)
    if (cursors?.offsets.length === 0) this.scopes.delete(scope)
  }
}

/** The start of a walk to `offset`, refused with a 400 naming `offset` when it is more than `maxWalk` behind. */
function checkedWalk(
  nearest: { offset: number; cursor: string } | undefined,
  offset: number,
  maxWalk: number,
): WalkStart {
  const start: WalkStart = nearest ?? { offset: 0, cursor: undefined }
  if (offset - start.offset > maxWalk) {
    throw badRequest(
      `offset: ${offset} is too far ahead for this provider, which pages by cursor: the nearest page ` +
        `read so far starts at ${start.offset}, and at most ${maxWalk} records are skipped to reach an ` +
        'offset; read the pages in order (offset 0, then offset + limit) to go further',
    )
  }
  return start
}

/** One cursor as the store keeps it: the scope only as its sha256, since a scope may hold query text. */
export interface StoredCursor {
  readonly connectionId: string
  readonly scopeHash: string
  readonly offset: number
  readonly cursor: string
  /** ISO-8601. */
  readonly expiresAt: string
}

/** The cursors every process sharing the database sees (src/store/list-cursors.ts). */
export interface CursorStore {
  /** The unexpired cursor at exactly `offset`. */
  find(scopeHash: string, offset: number, now: string): Promise<string | undefined>
  /** The unexpired cursor at the largest offset in 1..`offset`. */
  floor(
    scopeHash: string,
    offset: number,
    now: string,
  ): Promise<{ offset: number; cursor: string } | undefined>
  /** Inserts or replaces these cursors (at most one per scope and offset). */
  write(cursors: readonly StoredCursor[]): Promise<void>
  /** Deletes every cursor expired at `now`, in statements of a bounded number of rows. */
  sweep(now: string): Promise<void>
}

/** How a connector asks for a cursor. */
export interface CursorLookup {
  /**
   * Read what the store holds even when this process remembers a cursor there. For cursors that say which
   * listing a page belongs to (Matomo's `asOf`), not only where it starts: a listing started again on
   * another process wrote a newer one, and the latest written anywhere is the listing the caller is on.
   */
  readonly latest?: boolean
}

/**
 * Provider cursors remembered by offset, as connectors see them (`ctx.cursors`). Lookups may read the
 * store, so they are awaited; `set` remembers at once and is written to the store before the response (a
 * cursor longer than MAX_CURSOR_CHARS is not remembered).
 */
export interface ListCursors {
  get(scope: string, offset: number, how?: CursorLookup): Promise<string | undefined>
  nearest(
    scope: string,
    offset: number,
    how?: CursorLookup,
  ): Promise<{ offset: number; cursor: string } | undefined>
  walkStart(scope: string, offset: number, how?: CursorLookup & { maxWalk?: number }): Promise<WalkStart>
  set(scope: string, offset: number, cursor: string): void
}

const scopeHash = (scope: string) => createHash('sha256').update(scope).digest('hex')

/** How often a process deletes the expired cursors of every connection (on its next write after that). */
const SWEEP_EVERY_MS = 600_000

/**
 * The cursors of one process: its memory in front of the store shared with the other processes (when
 * there is one). Reading page N after page N-1 on the same process is a memory hit and makes no store
 * query; on another process it is one indexed read. Each request gets its own RequestCursors, whose
 * writes are stored together before the response (flush), so the next page finds them on any process.
 */
export class CursorBank {
  private lastSweep = 0
  /** The sweep under way, if any: one at a time per process. */
  private sweeping: Promise<void> | undefined

  constructor(
    readonly memory: CursorMemory = new CursorMemory(),
    readonly store?: CursorStore,
    private readonly ttlMs = CURSOR_TTL_MS,
    readonly now: () => number = Date.now,
  ) {}

  /**
   * The cursors of one request on `connectionId`, whose provider is at `providerAddress` (the client's base
   * address). A cursor is kept under the address it was read from: a connection moved to another address
   * (`PATCH` of its `api_url`) no longer finds the cursors of the old one, many of which are links there.
   */
  forConnection(connectionId: string, providerAddress = ''): RequestCursors {
    return new RequestCursors(this, connectionId, providerAddress)
  }

  /**
   * @internal Stores a request's cursors, and starts a sweep of expired ones at most every SWEEP_EVERY_MS.
   * The sweep runs beside the response, not before it: it deletes what every process let expire, which
   * is no concern of this request, and a failed one only leaves rows for the next.
   */
  async write(
    connectionId: string,
    pending: ReadonlyMap<string, { scope: string; offset: number; cursor: string }>,
  ) {
    const store = this.store
    if (!store || pending.size === 0) return
    const now = this.now()
    const expiresAt = new Date(now + this.ttlMs).toISOString()
    const rows: StoredCursor[] = []
    for (const { scope, offset, cursor } of pending.values())
      rows.push({ connectionId, scopeHash: scopeHash(scope), offset, cursor, expiresAt })
    await store.write(rows)
    for (const { scope, offset, cursor } of pending.values())
      this.memory.markStored(scope, offset, cursor, now)
    if (now - this.lastSweep >= SWEEP_EVERY_MS && !this.sweeping) {
      this.lastSweep = now
      this.sweeping = store
        .sweep(new Date(now).toISOString())
        .catch(() => undefined)
        .finally(() => {
          this.sweeping = undefined
        })
    }
  }

  /** Resolves once the sweep under way (if any) is over. */
  async swept(): Promise<void> {
    await this.sweeping
  }

  /** @internal */
  expiry(): number {
    return this.now() + this.ttlMs
  }

  /**
   * @internal Whether the store already holds this cursor, written by this process so recently that it has
   * most of its time left: the first page of a listing read again and again (a sync polling it) leaves the
   * same cursor each time, and writing it again cost a store write per request for nothing (issue 12: about
   * an eighth of a HubSpot contact list request's CPU on SQLite). After a sixth of the time to live it is
   * written again, so a cursor in use never expires in the store.
   */
  storedRecently(scope: string, offset: number, cursor: string): boolean {
    if (!this.store) return false
    const at = this.memory.storedAt(scope, offset, cursor)
    return at !== undefined && this.now() - at < this.ttlMs / 6
  }
}

/**
 * The cursors one request reads and writes, through its process's CursorBank. Every scope a connector gives
 * is keyed here under the request's connection and provider address too (in memory and, hashed, in the
 * store), so one connection's cursors are out of another's reach whatever the connector's scope names, and
 * out of its own reach once it points at another address.
 */
export class RequestCursors implements ListCursors {
  /** Written by this request, not yet stored; keyed by `scope\0offset` (scope as keyed by `own`). */
  private readonly pending = new Map<string, { scope: string; offset: number; cursor: string }>()

  constructor(
    private readonly bank: CursorBank,
    private readonly connectionId: string,
    private readonly providerAddress = '',
  ) {}

  /** The connector's scope under this request's connection and its provider address. */
  private own(scope: string): string {
    return `${this.connectionId}\u0000${this.providerAddress}\u0000${scope}`
  }

  private pendingAt(scope: string, offset: number): string | undefined {
    return this.pending.get(`${scope}\u0000${offset}`)?.cursor
  }

  async get(given: string, offset: number, how: CursorLookup = {}): Promise<string | undefined> {
    const { memory, store } = this.bank
    const scope = this.own(given)
    const mine = this.pendingAt(scope, offset)
    if (mine !== undefined) return mine
    if (!how.latest || !store) {
      const local = memory.get(scope, offset)
      if (local !== undefined || !store) return local
    }
    const stored = await store.find(scopeHash(scope), offset, new Date(this.bank.now()).toISOString())
    if (stored !== undefined) memory.set(scope, offset, stored, this.bank.expiry())
    return stored
  }

  async nearest(
    given: string,
    offset: number,
    how: CursorLookup = {},
  ): Promise<{ offset: number; cursor: string } | undefined> {
    const { memory, store } = this.bank
    const scope = this.own(given)
    // What this request wrote is the newest anywhere; otherwise memory may be older than the store.
    const local = how.latest && store ? this.pendingFloor(scope, offset) : memory.nearest(scope, offset)
    // Nothing starts a walk at or below 0, and an exact hit is as near as any: no store query for either.
    if (!store || offset <= 0 || (local !== undefined && local.offset === offset)) return local
    const stored = await store.floor(scopeHash(scope), offset, new Date(this.bank.now()).toISOString())
    if (stored === undefined || (local !== undefined && local.offset >= stored.offset)) return local
    memory.set(scope, stored.offset, stored.cursor, this.bank.expiry())
    return stored
  }

  /** The nearest cursor at or before `offset` (above 0) that this request wrote. */
  private pendingFloor(scope: string, offset: number): { offset: number; cursor: string } | undefined {
    let best: { offset: number; cursor: string } | undefined
    for (const p of this.pending.values())
      if (p.scope === scope && p.offset > 0 && p.offset <= offset && (!best || p.offset > best.offset))
        best = { offset: p.offset, cursor: p.cursor }
    return best
  }

  async walkStart(
    scope: string,
    offset: number,
    how: CursorLookup & { maxWalk?: number } = {},
  ): Promise<WalkStart> {
    return checkedWalk(await this.nearest(scope, offset, how), offset, how.maxWalk ?? MAX_CURSOR_WALK)
  }

  set(given: string, offset: number, cursor: string): void {
    if (cursor.length > MAX_CURSOR_CHARS) return
    const scope = this.own(given)
    if (this.bank.storedRecently(scope, offset, cursor)) return
    this.bank.memory.set(scope, offset, cursor, this.bank.expiry())
    this.pending.set(`${scope}\u0000${offset}`, { scope, offset, cursor })
  }

  /** Stores what this request remembered; the response waits for it, so the next page sees it anywhere. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return
    const pending = new Map(this.pending)
    this.pending.clear()
    await this.bank.write(this.connectionId, pending)
  }
}

/** Cursors kept in memory only, for code that runs without a store (unit tests, one-off contexts). */
export function memoryCursors(memory = new CursorMemory()): RequestCursors {
  return new CursorBank(memory).forConnection('')
}
