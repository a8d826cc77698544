import { CLICKHOUSE, HogQLError, unsupported } from './errors.js'
import {
  compareValues,
  isNumeric,
  isTemporal,
  isTextual,
  isTrue,
  parseDateTime,
  types,
  type Value,
  type ValueType,
  withNullable,
} from './values.js'
import { currentZone, instantOfWall, localDate, startOfLocalDay, startOfLocalHour, wallText } from './zone.js'

/** An expression compiled against a table: its static type and how to compute it for a frame. */
export interface Compiled {
  readonly type: ValueType
  /** Set when the value does not depend on the row (literals and functions of literals). */
  readonly constant?: { readonly value: Value }
  evaluate(frame: Frame): Value
}

/** What an expression is evaluated on: a row, or (after GROUP BY) a group's key values and aggregate results. */
export interface Frame {
  row: number
  keys: Value[]
  aggregates: Value[]
}

export function constant(value: Value, type: ValueType): Compiled {
  return { type, constant: { value }, evaluate: () => value }
}

function requireArgs(name: string, args: readonly Compiled[], min: number, max: number): void {
  if (args.length < min || args.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`
    throw new HogQLError(
      'resolution_error',
      `Function '${name}' expects ${expected} arguments, got ${args.length}`,
    )
  }
}

function illegalType(name: string, type: ValueType): HogQLError {
  return new HogQLError(
    'type_error',
    `Illegal type ${type.name} of argument of function ${name}`,
    CLICKHOUSE.illegalType,
  )
}

/** Applies `fn` to a non-null argument, folding constants so literals are converted once per query. */
function unary(arg: Compiled, type: ValueType, fn: (v: Value) => Value): Compiled {
  if (arg.constant) {
    const v = arg.constant.value
    return constant(v === null ? null : fn(v), type)
  }
  return {
    type,
    evaluate: (frame) => {
      const v = arg.evaluate(frame)
      return v === null ? null : fn(v)
    },
  }
}

function temporalArg(name: string, arg: Compiled, zone = currentZone()): (v: Value) => number | null {
  if (isTemporal(arg.type.kind)) return (v) => v as number
  if (arg.type.kind === 'string') return (v) => parseDateTime(v as string, zone) ?? null
  throw illegalType(name, arg.type)
}

/** Cuts a date-time to its local day or hour in the project's zone, as HogQL does (zone.ts). */
function truncating(
  name: string,
  cut: (ms: number, zone: string) => number,
  resultType: (nullable: boolean) => ValueType,
) {
  return (args: Compiled[]): Compiled => {
    requireArgs(name, args, 1, 1)
    const arg = args[0] as Compiled
    const read = temporalArg(name, arg)
    const nullable = arg.type.nullable || arg.type.kind === 'string'
    const zone = currentZone()
    // A Date is a calendar day: it starts at that day's local midnight.
    const fromDate = arg.type.kind === 'date'
    return unary(arg, resultType(nullable), (v) => {
      const ms = read(v)
      if (ms === null) return null
      return cut(fromDate ? instantOfWall(ms, zone) : ms, zone)
    })
  }
}

function toFloat(v: Value): Value {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return Number(v)
  if (typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v)) return Number(v)
  return null
}

function stringOf(v: Value, type: ValueType): string {
  if (Array.isArray(v)) return JSON.stringify(v)
  if (typeof v === 'number' && type.kind === 'datetime') return wallText(v, currentZone())
  if (typeof v === 'number' && type.kind === 'date') return new Date(v).toISOString().slice(0, 10)
  return String(v)
}

type ScalarFunction = (args: Compiled[]) => Compiled

/**
 * The names, arities and result types follow HogQL's function table (PostHog/posthog@master:
 * posthog/hogql/functions/mapping.py `HOGQL_CLICKHOUSE_FUNCTIONS`, `HOGQL_AGGREGATIONS`).
 */
/** The scalar functions of the subset; names are case-sensitive, as in HogQL. */
export const SCALAR_FUNCTIONS: Readonly<Record<string, ScalarFunction>> = {
  toDate: truncating('toDate', localDate, (n) => types.date(n)),
  toStartOfDay: truncating('toStartOfDay', startOfLocalDay, (n) => types.datetime(n)),
  toStartOfHour: truncating('toStartOfHour', startOfLocalHour, (n) => types.datetime(n)),
  toDateTime: (args) => {
    requireArgs('toDateTime', args, 1, 2)
    const zone = args[1]
    if (zone && (zone.constant?.value !== 'UTC' || zone.type.kind !== 'string')) {
      throw unsupported('toDateTime with a time zone other than UTC')
    }
    const arg = args[0] as Compiled
    // `toDateTime(x, 'UTC')` reads and answers in UTC whatever the project's zone.
    const read = temporalArg('toDateTime', arg, zone ? 'UTC' : currentZone())
    return unary(arg, zone ? types.datetime64In('UTC', true) : types.datetime64(true), (v) => read(v))
  },
  toFloat: (args) => {
    requireArgs('toFloat', args, 1, 1)
    const arg = args[0] as Compiled
    if (!isNumeric(arg.type.kind) && arg.type.kind !== 'string') throw illegalType('toFloat', arg.type)
    return unary(arg, types.float(true), toFloat)
  },
  toInt: (args) => {
    requireArgs('toInt', args, 1, 1)
    const arg = args[0] as Compiled
    if (!isNumeric(arg.type.kind) && arg.type.kind !== 'string') throw illegalType('toInt', arg.type)
    return unary(arg, types.int(true), (v) => {
      const f = toFloat(v)
      return f === null ? null : Math.trunc(f as number)
    })
  },
  toString: (args: Compiled[]) => {
    requireArgs('toString', args, 1, 1)
    const arg = args[0] as Compiled
    return unary(arg, types.string(arg.type.nullable), (v) => stringOf(v, arg.type))
  },
  lower: (args) => textual('lower', args, (s) => s.toLowerCase()),
  upper: (args) => textual('upper', args, (s) => s.toUpperCase()),
  coalesce: (args) => coalesce('coalesce', args),
  ifNull: (args) => {
    requireArgs('ifNull', args, 2, 2)
    return coalesce('ifNull', args)
  },
}

function textual(name: string, args: Compiled[], fn: (s: string) => string): Compiled {
  requireArgs(name, args, 1, 1)
  const arg = args[0] as Compiled
  if (!isTextual(arg.type.kind)) throw illegalType(name, arg.type)
  return unary(arg, types.string(arg.type.nullable), (v) => fn(v as string))
}

function coalesce(name: string, args: Compiled[]): Compiled {
  if (args.length === 0)
    throw new HogQLError('resolution_error', `Function '${name}' expects at least 1 argument`)
  const typed = args.filter((a) => a.type.kind !== 'null')
  const first = typed[0]
  if (!first) return constant(null, types.null())
  for (const a of typed) {
    const compatible =
      a.type.kind === first.type.kind ||
      (isTextual(a.type.kind) && isTextual(first.type.kind)) ||
      (isNumeric(a.type.kind) && isNumeric(first.type.kind))
    if (!compatible) {
      throw new HogQLError(
        'type_error',
        `There is no supertype for types ${first.type.name}, ${a.type.name}`,
        CLICKHOUSE.noCommonType,
      )
    }
  }
  const nullable = args.every((a) => a.type.nullable)
  return {
    type: withNullable(first.type, nullable),
    evaluate: (frame) => {
      for (const a of args) {
        const v = a.evaluate(frame)
        if (v !== null) return v
      }
      return null
    },
  }
}

/** One running aggregate for one group. */
export interface Accumulator {
  add(args: readonly Value[]): void
  result(): Value
}

export interface AggregateFunction {
  readonly minArgs: number
  readonly maxArgs: number
  readonly allowsDistinct: boolean
  resultType(args: readonly ValueType[]): ValueType
  create(distinct: boolean): Accumulator
}

function distinctKey(v: Value): string | number | boolean {
  return Array.isArray(v) ? JSON.stringify(v) : (v as string | number | boolean)
}

function requireNumeric(name: string, type: ValueType | undefined): void {
  if (type && !isNumeric(type.kind)) {
    throw new HogQLError(
      'type_error',
      `Illegal type ${type.name} of argument for aggregate function ${name}`,
      CLICKHOUSE.illegalType,
    )
  }
}

function extreme(name: string, sign: 1 | -1): AggregateFunction {
  return {
    minArgs: 1,
    maxArgs: 1,
    allowsDistinct: false,
    resultType: ([t]) => {
      if (t?.kind === 'array')
        throw new HogQLError(
          'type_error',
          `Illegal type ${t.name} of argument for ${name}`,
          CLICKHOUSE.illegalType,
        )
      return withNullable(t as ValueType, true)
    },
    create: () => {
      let best: Value = null
      return {
        add: ([v]) => {
          if (v === null || v === undefined) return
          if (best === null || sign * compareValues(v, best) < 0) best = v
        },
        result: () => best,
      }
    },
  }
}

function argExtreme(sign: 1 | -1): AggregateFunction {
  return {
    minArgs: 2,
    maxArgs: 2,
    allowsDistinct: false,
    resultType: ([t]) => withNullable(t as ValueType, true),
    create: () => {
      let best: Value = null
      let value: Value = null
      return {
        add: ([v, by]) => {
          if (by === null || by === undefined) return
          if (best === null || sign * compareValues(by, best) < 0) {
            best = by
            value = v ?? null
          }
        },
        result: () => value,
      }
    },
  }
}

function counting(distinctAllowed: boolean): AggregateFunction {
  return {
    minArgs: 0,
    maxArgs: 1,
    allowsDistinct: distinctAllowed,
    resultType: () => types.uint(),
    create: (distinct) => {
      if (distinct) {
        const seen = new Set<string | number | boolean>()
        return {
          add: ([v]) => {
            if (v !== null && v !== undefined) seen.add(distinctKey(v))
          },
          result: () => seen.size,
        }
      }
      let n = 0
      return {
        add: (args) => {
          if (args.length === 0 || args[0] !== null) n++
        },
        result: () => n,
      }
    },
  }
}

const uniq: AggregateFunction = {
  minArgs: 1,
  maxArgs: 1,
  allowsDistinct: false,
  resultType: () => types.uint(),
  create: () => counting(true).create(true),
}

export const AGGREGATE_FUNCTIONS: Readonly<Record<string, AggregateFunction>> = {
  count: counting(true),
  uniq,
  uniqExact: uniq,
  countIf: {
    minArgs: 1,
    maxArgs: 1,
    allowsDistinct: false,
    resultType: () => types.uint(),
    create: () => {
      let n = 0
      return {
        add: ([v]) => {
          if (isTrue(v ?? null)) n++
        },
        result: () => n,
      }
    },
  },
  sum: {
    minArgs: 1,
    maxArgs: 1,
    allowsDistinct: false,
    resultType: ([t]) => {
      requireNumeric('sum', t)
      return t?.name.includes('Float') ? types.float() : types.int()
    },
    create: () => {
      let total = 0
      return {
        add: ([v]) => {
          if (v !== null && v !== undefined) total += Number(v)
        },
        result: () => total,
      }
    },
  },
  avg: {
    minArgs: 1,
    maxArgs: 1,
    allowsDistinct: false,
    resultType: ([t]) => {
      requireNumeric('avg', t)
      return types.float(true)
    },
    create: () => {
      let total = 0
      let n = 0
      return {
        add: ([v]) => {
          if (v === null || v === undefined) return
          total += Number(v)
          n++
        },
        result: () => (n === 0 ? null : total / n),
      }
    },
  },
  min: extreme('min', 1),
  max: extreme('max', -1),
  argMin: argExtreme(1),
  argMax: argExtreme(-1),
}
