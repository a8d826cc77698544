import { createHash } from 'node:crypto'
import { LoopSlices } from '../loop-slices.js'

/** A record as delivered: plain JSON (already projected, dates as ISO strings). */
export type DeliveredRecord = Readonly<Record<string, unknown>>

export type WebhookEvent = 'created' | 'updated' | 'deleted'

/**
 * JSON with object keys sorted (by UTF-16 code units, integer-like keys too), so the same content always gives
 * the same text. Written into one list of parts joined once: text built level by level (`[${inner}]`, a join
 * per array) copied each level's whole content again at every level above it, so a record nested D levels
 * deep around a string of S characters cost D × S. A provider's data (a record's `raw`) 2,000 levels deep
 * around 1 MB held the event loop for 20 s in a virtual webhook's check (a security review, reproduced);
 * it is one pass now. The text is the one the level-by-level writing gave: fingerprints kept before stay
 * valid.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = []
  writeCanonical(value, parts)
  return parts.join('')
}

function writeCanonical(value: unknown, out: string[]): void {
  if (Array.isArray(value)) {
    out.push('[')
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',')
      // A hole writes nothing, as `map` and `join` wrote it.
      if (i in value) writeCanonical(value[i], out)
    }
    out.push(']')
    return
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    out.push('{')
    for (let i = 0; i < entries.length; i++) {
      const [key, v] = entries[i]!
      out.push(i > 0 ? ',' : '', JSON.stringify(key), ':')
      writeCanonical(v, out)
    }
    out.push('}')
    return
  }
  out.push(JSON.stringify(value) ?? 'null')
}

/** A short, stable digest of a record's content: what is kept instead of the record itself. */
export function fingerprintOf(record: DeliveredRecord): string {
  return digestOf(canonicalJson(record))
}

function digestOf(canonical: string): string {
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 32)
}

/** The key a record is remembered by: its id, or (for records without one) its content (`fingerprint`, when known). */
export function recordKeyOf(record: DeliveredRecord, fingerprint?: string): string {
  return typeof record.id === 'string' && record.id !== ''
    ? record.id
    : `#${fingerprint ?? fingerprintOf(record)}`
}

export interface FingerprintDiff {
  readonly created: DeliveredRecord[]
  readonly updated: DeliveredRecord[]
  /** Keys seen last time and missing now. */
  readonly deleted: string[]
  /** What to remember after this check (key -> fingerprint). */
  readonly next: Map<string, string>
}

/**
 * Records fingerprinted between two turns of the event loop, at most: a check reads up to 100,100 records,
 * and fingerprinting them at once held every request of the process for over a second (a page of 100,000
 * plain records with a small `raw`: 1.2 s on a 2-core machine); a slice of this many takes some milliseconds.
 */
const FINGERPRINTS_PER_TURN = 1000

/**
 * The most canonical text fingerprinted between two turns, whatever the count: records of some 32 KB each (a
 * connection's own address can answer them, up to the answer cap) made one slice of 1,000 records a 700 ms
 * pause (a review measured it). Counted in text, not time, so where the event loop turns does not depend on
 * the machine.
 */
const FINGERPRINT_TEXT_PER_TURN = 1024 * 1024

/**
 * Compares a complete listing with what the previous check saw. Only meaningful when the listing is the
 * whole set: a record missing from a partial (windowed) listing is not a deleted record. Lets the event loop
 * turn every FINGERPRINTS_PER_TURN records or FINGERPRINT_TEXT_PER_TURN of their text.
 */
export async function diffAgainstFingerprints(
  records: readonly DeliveredRecord[],
  previous: ReadonlyMap<string, string>,
): Promise<FingerprintDiff> {
  const created: DeliveredRecord[] = []
  const updated: DeliveredRecord[] = []
  const next = new Map<string, string>()
  const slices = new LoopSlices(FINGERPRINTS_PER_TURN, FINGERPRINT_TEXT_PER_TURN)
  for (const record of records) {
    const canonical = canonicalJson(record)
    const turn = slices.spend(1, canonical.length)
    const fingerprint = digestOf(canonical)
    const key = recordKeyOf(record, fingerprint)
    if (!next.has(key)) {
      next.set(key, fingerprint)
      const before = previous.get(key)
      if (before === undefined) created.push(record)
      else if (before !== fingerprint) updated.push(record)
    }
    if (turn) await turn
  }
  const deleted = [...previous.keys()].filter((key) => !next.has(key))
  return { created, updated, deleted, next }
}

/**
 * Splits records read with `updated_gte = since` into created and updated: a record created at or after
 * `since` is new; one created before it (or with no creation date) was changed.
 */
export function classifyByTimestamps(
  records: readonly DeliveredRecord[],
  since: string,
  recordsNeverChange = false,
): { created: DeliveredRecord[]; updated: DeliveredRecord[] } {
  // A record that can never change was not updated: read since the cursor, it is one the provider just
  // made listable, even when it happened before the cursor (an export that lags).
  if (recordsNeverChange) return { created: [...records], updated: [] }
  const sinceMs = Date.parse(since)
  const created: DeliveredRecord[] = []
  const updated: DeliveredRecord[] = []
  for (const record of records) {
    const createdMs = typeof record.created_at === 'string' ? Date.parse(record.created_at) : Number.NaN
    if (!Number.isNaN(createdMs) && createdMs >= sinceMs) created.push(record)
    else updated.push(record)
  }
  return { created, updated }
}

/**
 * Splits records read with `updated_gte = cursor - lag`, for a provider whose `updated_gte` list shows a
 * change only up to `lagMs` after it happened (a search index that lags writes). Reading back by the lag
 * catches changes made before the cursor but listed after it; `previous` (the fingerprints of the last
 * such read, which covered this overlap) drops the ones already delivered unchanged. A record not seen
 * before is new when created inside the window read, else changed. `seen` is what to remember, `gone`
 * what fell out of the window.
 */
export async function classifyOverlapping(
  records: readonly DeliveredRecord[],
  previous: ReadonlyMap<string, string>,
  cursor: string,
  lagMs: number,
): Promise<{
  created: DeliveredRecord[]
  updated: DeliveredRecord[]
  seen: Map<string, string>
  gone: string[]
}> {
  const diff = await diffAgainstFingerprints(records, previous)
  const windowStart = Date.parse(cursor) - lagMs
  const created: DeliveredRecord[] = []
  const updated: DeliveredRecord[] = [...diff.updated]
  for (const record of diff.created) {
    const createdMs = typeof record.created_at === 'string' ? Date.parse(record.created_at) : Number.NaN
    if (!Number.isNaN(createdMs) && createdMs >= windowStart) created.push(record)
    else updated.push(record)
  }
  return { created, updated, seen: diff.next, gone: diff.deleted }
}

/** The records of one event out of a diff; deleted records are delivered as `{ id }`. */
export function changesFor(
  event: WebhookEvent,
  diff: { created: DeliveredRecord[]; updated: DeliveredRecord[]; deleted?: readonly string[] },
): DeliveredRecord[] {
  if (event === 'created') return diff.created
  if (event === 'updated') return diff.updated
  return (diff.deleted ?? []).filter((key) => !key.startsWith('#')).map((id) => ({ id }))
}
