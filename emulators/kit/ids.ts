import type { SeededRandom } from './random.js'

export const SECOND_MS = 1000
export const MINUTE_MS = 60 * SECOND_MS
export const HOUR_MS = 60 * MINUTE_MS
export const DAY_MS = 24 * HOUR_MS

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value)
}

function hex(value: number, digits: number): string {
  return (value >>> 0).toString(16).padStart(digits, '0').slice(-digits)
}

/** A UUIDv7 (time-ordered, like the ids PostHog gives events and sessions) whose random bits come from `random`. */
export function uuidV7(ms: number, random: SeededRandom): string {
  const time = Math.max(0, Math.floor(ms))
  const high = Math.floor(time / 0x10000)
  const low = time % 0x10000
  const a = random.uint32()
  const b = random.uint32()
  const c = random.uint32()
  // join() yields one flat string; concatenation would keep every piece alive, which adds up over a million ids.
  return [
    hex(high, 8),
    '-',
    hex(low, 4),
    '-7',
    hex(a >>> 20, 3),
    '-',
    hex(0x8000 | ((a >>> 4) & 0x3fff), 4),
    '-',
    hex(b, 8),
    hex(c >>> 16, 4),
  ].join('')
}

/** The millisecond timestamp a UUIDv7 carries, or undefined for another kind of id. */
export function uuidV7Millis(uuid: string): number | undefined {
  if (!isUuid(uuid) || uuid[14] !== '7') return undefined
  return Number.parseInt(uuid.slice(0, 8), 16) * 0x10000 + Number.parseInt(uuid.slice(9, 13), 16)
}

/** A random-looking UUIDv4 drawn from `random`. */
export function uuidV4(random: SeededRandom): string {
  const a = random.uint32()
  const b = random.uint32()
  const c = random.uint32()
  const d = random.uint32()
  return [
    hex(a, 8),
    '-',
    hex(b >>> 16, 4),
    '-4',
    hex(b, 3),
    '-',
    hex(0x8000 | ((c >>> 16) & 0x3fff), 4),
    '-',
    hex(c, 4),
    hex(d, 8),
  ].join('')
}

/** `2024-05-01T10:00:00.123000Z`: ISO-8601 UTC with microseconds, the way Python and ClickHouse print times. */
export function isoMicros(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`
}

/** `2024-05-01T10:00:00.123000+00:00`: the same instant with an explicit offset (Django's DateTimeField style). */
export function isoMicrosOffset(ms: number): string {
  return `${isoMicros(ms).slice(0, -1)}+00:00`
}
