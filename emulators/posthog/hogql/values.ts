import { utc } from '../../kit/zones.js'
import { CLICKHOUSE, HogQLError } from './errors.js'
import { currentZone, formatInZone, instantOfWall } from './zone.js'

/**
 * Runtime values. Dates and date-times are epoch milliseconds: their static type says how to print them,
 * so comparing and grouping them is plain number work.
 */
export type Value = string | number | boolean | null | readonly string[]

export type Kind = 'string' | 'number' | 'bool' | 'datetime' | 'date' | 'uuid' | 'array' | 'null'

export interface ValueType {
  readonly kind: Kind
  readonly nullable: boolean
  /** ClickHouse's name for the type, as the `types` of a query response show it. */
  readonly name: string
}

function make(kind: Kind, name: string, nullable: boolean): ValueType {
  return { kind, nullable, name: nullable && kind !== 'null' ? `Nullable(${name})` : name }
}

export const types = {
  string: (nullable = false) => make('string', 'String', nullable),
  float: (nullable = false) => make('number', 'Float64', nullable),
  int: (nullable = false) => make('number', 'Int64', nullable),
  uint: (nullable = false) => make('number', 'UInt64', nullable),
  bool: (nullable = false) => make('bool', 'Bool', nullable),
  // Date-times are in the query's (the project's) zone, and their type says so (see zone.ts).
  datetime64: (nullable = false) => make('datetime', `DateTime64(6, '${currentZone()}')`, nullable),
  datetime64In: (zone: string, nullable = false) => make('datetime', `DateTime64(6, '${zone}')`, nullable),
  datetime: (nullable = false) => make('datetime', `DateTime('${currentZone()}')`, nullable),
  date: (nullable = false) => make('date', 'Date', nullable),
  uuid: (nullable = false) => make('uuid', 'UUID', nullable),
  stringArray: () => make('array', 'Array(String)', false),
  null: () => make('null', 'Nullable(Nothing)', true),
}

/** The same type, made nullable (or not). */
export function withNullable(type: ValueType, nullable: boolean): ValueType {
  const base = type.name.replace(/^Nullable\((.*)\)$/, '$1')
  return make(type.kind, base, nullable)
}

export const isTemporal = (kind: Kind) => kind === 'datetime' || kind === 'date'
export const isNumeric = (kind: Kind) => kind === 'number' || kind === 'bool'
export const isTextual = (kind: Kind) => kind === 'string' || kind === 'uuid'

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/

/**
 * Reads a date-time the way ClickHouse's best-effort parser does for the usual ISO-8601 forms. Without an
 * offset the text is a wall time in `zone`: HogQL passes the project's zone to ClickHouse
 * (`toDateTime64('…', 6, '<team tz>')`, PostHog/posthog@master:posthog/hogql/printer.py).
 */
export function parseDateTime(text: string, zone = 'UTC'): number | undefined {
  const m = DATE_TIME.exec(text.trim())
  if (!m) return undefined
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offsetText] = m
  const ms = Number(`0.${fraction || '0'}`) * 1000
  let value = utc(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) + Math.floor(ms)
  const check = new Date(utc(Number(y), Number(mo) - 1, Number(d)))
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return undefined
  if (offsetText && offsetText !== 'Z') {
    const sign = offsetText.startsWith('-') ? -1 : 1
    const digits = offsetText.slice(1).replace(':', '')
    const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0')
    value -= sign * offset * 60_000
  } else if (!offsetText) {
    value = instantOfWall(value, zone)
  }
  return Number.isNaN(value) ? undefined : value
}

/** A date-time string in a query: without an offset it is read in the project's zone. */
export function parseDateTimeStrict(text: string, target: string): number {
  const value = parseDateTime(text, currentZone())
  if (value === undefined) {
    throw new HogQLError(
      'type_error',
      `Cannot parse string '${text}' as ${target}`,
      CLICKHOUSE.cannotParseDateTime,
    )
  }
  return value
}

/** A value as the query API's JSON shows it. */
export function outputValue(value: Value, type: ValueType): unknown {
  if (value === null) return null
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null
    if (type.kind === 'datetime') {
      // The type names its zone (`DateTime64(6, 'America/New_York')`), as ClickHouse's does.
      const zone = /'([^']+)'/.exec(type.name)?.[1] ?? currentZone()
      return formatInZone(value, zone, type.name.includes('DateTime64'))
    }
    if (type.kind === 'date') return new Date(value).toISOString().slice(0, 10)
  }
  return value
}

/** Orders two non-null values of compatible types. */
export function compareValues(a: Value, b: Value): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  if (Array.isArray(a) || Array.isArray(b)) return compareValues(JSON.stringify(a), JSON.stringify(b))
  return Number(a) - Number(b)
}

/** Truthiness for WHERE, HAVING, countIf and the logical operators (ClickHouse: non-zero is true). */
export function isTrue(value: Value): boolean {
  return value === true || (typeof value === 'number' && value !== 0)
}
