import { hash32, SeededRandom, uuidV7, uuidV7Millis } from '../../kit/index.js'
import { EVENT_KINDS } from '../data/event-kinds.js'
import {
  SEEDED_PROPERTY_GETTERS,
  type SeededEventView,
  seededElementsChain,
  seededProperties,
} from './seeded-properties.js'
import type { SessionRecord } from './sessions.js'

/**
 * Seeded events in columns, sorted by time: about 15 bytes an event, so a million fit comfortably. Everything
 * else about an event is derived from its session, kind and page when asked for. Sorted by time as
 * ClickHouse stores `events` (PostHog/posthog@master:posthog/models/event/sql.py: ORDER BY team, day, …).
 */
export interface SeededEvents {
  readonly count: number
  readonly ts: Float64Array
  readonly kind: Uint8Array
  readonly session: Uint32Array
  readonly page: Uint8Array
}

/** An event received by capture, kept as sent (after PostHog's own normalisation). */
export interface CapturedEvent {
  readonly uuid: string
  readonly event: string
  readonly distinctId: string
  readonly timestamp: number
  /** When it was ingested: ClickHouse's `created_at`. */
  readonly createdAt: number
  readonly properties: Readonly<Record<string, unknown>>
  readonly personUuid?: string
  readonly elementsChain: string
}

/**
 * The events of one project. A row is an index: seeded events first (0..seededCount-1, in time order), then
 * captured ones (kept in time order too), so every column is a function of the index.
 */
export class EventStore {
  private readonly captured: CapturedEvent[] = []
  private readonly capturedUuids = new Set<string>()

  constructor(
    private readonly seeded: SeededEvents,
    private readonly sessions: readonly SessionRecord[],
    private readonly noiseSeed: number,
  ) {}

  get count(): number {
    return this.seeded.count + this.captured.length
  }

  private capturedAt(i: number): CapturedEvent | undefined {
    return i >= this.seeded.count ? this.captured[i - this.seeded.count] : undefined
  }

  private view(i: number): SeededEventView {
    const session = this.sessions[this.seeded.session[i] as number] as SessionRecord
    return {
      session,
      profile: session.profile!,
      kind: EVENT_KINDS[this.seeded.kind[i] as number]!,
      page: this.seeded.page[i] as number,
      noise: hash32(this.noiseSeed, i),
    }
  }

  uuid(i: number): string {
    const c = this.capturedAt(i)
    if (c) return c.uuid
    return uuidV7(this.seeded.ts[i] as number, new SeededRandom(hash32(this.noiseSeed, i, 0x7575)))
  }

  event(i: number): string {
    return this.capturedAt(i)?.event ?? (EVENT_KINDS[this.seeded.kind[i] as number]?.event as string)
  }

  distinctId(i: number): string {
    return this.capturedAt(i)?.distinctId ?? this.view(i).session.distinctId
  }

  timestamp(i: number): number {
    return this.capturedAt(i)?.timestamp ?? (this.seeded.ts[i] as number)
  }

  createdAt(i: number): number {
    return this.capturedAt(i)?.createdAt ?? (this.seeded.ts[i] as number)
  }

  personUuid(i: number): string | undefined {
    const c = this.capturedAt(i)
    return c ? c.personUuid : this.view(i).session.personUuid
  }

  properties(i: number): Readonly<Record<string, unknown>> {
    return this.capturedAt(i)?.properties ?? seededProperties(this.view(i))
  }

  property(i: number, name: string): unknown {
    const c = this.capturedAt(i)
    if (c) return c.properties[name]
    const get = SEEDED_PROPERTY_GETTERS[name]
    return get ? get(this.view(i)) : undefined
  }

  elementsChain(i: number): string {
    return this.capturedAt(i)?.elementsChain ?? seededElementsChain(this.view(i))
  }

  /** Row indexes in timestamp order, merging seeded and captured events. */
  *ordered(desc: boolean): Generator<number> {
    const n = this.seeded.count
    const m = this.captured.length
    let a = desc ? n - 1 : 0
    let b = desc ? m - 1 : 0
    const inA = () => (desc ? a >= 0 : a < n)
    const inB = () => (desc ? b >= 0 : b < m)
    while (inA() || inB()) {
      const takeA =
        !inB() ||
        (inA() &&
          (desc
            ? (this.seeded.ts[a] as number) >= (this.captured[b] as CapturedEvent).timestamp
            : (this.seeded.ts[a] as number) <= (this.captured[b] as CapturedEvent).timestamp))
      if (takeA) {
        yield a
        a += desc ? -1 : 1
      } else {
        yield n + b
        b += desc ? -1 : 1
      }
    }
  }

  /** The row of the event with this uuid; seeded uuids carry their time, so a binary search finds them. */
  findByUuid(uuid: string): number | undefined {
    const wanted = uuid.toLowerCase()
    if (this.capturedUuids.has(wanted)) {
      const index = this.captured.findIndex((c) => c.uuid === wanted)
      return index < 0 ? undefined : this.seeded.count + index
    }
    const ms = uuidV7Millis(wanted)
    if (ms === undefined) return undefined
    for (let i = this.lowerBound(ms); i < this.seeded.count && this.seeded.ts[i] === ms; i++) {
      if (this.uuid(i) === wanted) return i
    }
    return undefined
  }

  private lowerBound(ms: number): number {
    let lo = 0
    let hi = this.seeded.count
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.seeded.ts[mid] as number) < ms) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  add(event: CapturedEvent): void {
    let lo = 0
    let hi = this.captured.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.captured[mid] as CapturedEvent).timestamp <= event.timestamp) lo = mid + 1
      else hi = mid
    }
    this.captured.splice(lo, 0, event)
    this.capturedUuids.add(event.uuid)
  }

  hasUuid(uuid: string): boolean {
    return this.findByUuid(uuid) !== undefined
  }
}
