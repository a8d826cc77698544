import { type Expr, printExpr } from './ast.js'
import { CLICKHOUSE, HogQLError, unsupported } from './errors.js'
import {
  type Accumulator,
  AGGREGATE_FUNCTIONS,
  type AggregateFunction,
  type Compiled,
  constant,
  SCALAR_FUNCTIONS,
} from './functions.js'
import type { HogQLTable } from './table.js'
import {
  compareValues,
  isNumeric,
  isTemporal,
  isTextual,
  isTrue,
  parseDateTime,
  parseDateTimeStrict,
  types,
  type Value,
  type ValueType,
} from './values.js'

/** One aggregate call of the query, fed row by row for every group. */
export interface AggregateSlot {
  readonly text: string
  readonly fn: AggregateFunction
  readonly distinct: boolean
  readonly args: readonly Compiled[]
}

export interface GroupKey {
  readonly text: string
  readonly type: ValueType
}

/** Where an expression is compiled: which table, which aliases, and whether rows are grouped. */
export interface Scope {
  readonly table: HogQLTable
  readonly tableAlias?: string
  readonly aliases: ReadonlyMap<string, Expr>
  /** Present once rows are grouped: terms must be group keys or aggregates. */
  readonly grouping?: { readonly keys: readonly GroupKey[]; readonly slots: AggregateSlot[] }
  /** The clause, for messages ("WHERE"). */
  readonly clause: string
  /** The INNER JOINs the query's columns read through (table.ts `innerJoin`), filled as they compile. */
  readonly innerJoins?: Set<(row: number) => boolean>
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function lookup<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  if (Object.hasOwn(table, name)) return table[name]
  const lower = name.toLowerCase()
  const key = Object.keys(table).find((k) => k.toLowerCase() === lower && lower.length > 0)
  return key === undefined ? undefined : table[key]
}

export function isAggregateCall(expr: Expr): boolean {
  return expr.kind === 'call' && lookup(AGGREGATE_FUNCTIONS, expr.name) !== undefined
}

/** True when the expression (after alias substitution) contains an aggregate call anywhere. */
export function containsAggregate(
  expr: Expr,
  aliases: ReadonlyMap<string, Expr>,
  seen = new Set<string>(),
): boolean {
  switch (expr.kind) {
    case 'call':
      return isAggregateCall(expr) || expr.args.some((a) => containsAggregate(a, aliases, seen))
    case 'field': {
      const name = expr.chain[0] as string
      const target = expr.chain.length === 1 && !seen.has(name) ? aliases.get(name) : undefined
      return target ? containsAggregate(target, aliases, new Set([...seen, name])) : false
    }
    case 'compare':
    case 'arithmetic':
      return containsAggregate(expr.left, aliases, seen) || containsAggregate(expr.right, aliases, seen)
    case 'and':
    case 'or':
      return expr.items.some((i) => containsAggregate(i, aliases, seen))
    case 'not':
    case 'negate':
    case 'isNull':
      return containsAggregate(expr.expr, aliases, seen)
    case 'in':
      return (
        containsAggregate(expr.expr, aliases, seen) ||
        expr.list.some((i) => containsAggregate(i, aliases, seen))
      )
    case 'like':
      return containsAggregate(expr.expr, aliases, seen) || containsAggregate(expr.pattern, aliases, seen)
    case 'literal':
      return false
  }
}

/** Replaces select aliases by the expressions they name (recursively), as ClickHouse lets clauses use them. */
export function expandAliases(
  expr: Expr,
  aliases: ReadonlyMap<string, Expr>,
  seen = new Set<string>(),
): Expr {
  const again = (e: Expr) => expandAliases(e, aliases, seen)
  switch (expr.kind) {
    case 'field': {
      const name = expr.chain[0] as string
      if (expr.chain.length !== 1 || seen.has(name)) return expr
      const target = aliases.get(name)
      return target ? expandAliases(target, aliases, new Set([...seen, name])) : expr
    }
    case 'call':
      return { ...expr, args: expr.args.map(again) }
    case 'compare':
    case 'arithmetic':
      return { ...expr, left: again(expr.left), right: again(expr.right) }
    case 'and':
    case 'or':
      return { ...expr, items: expr.items.map(again) }
    case 'not':
    case 'negate':
    case 'isNull':
      return { ...expr, expr: again(expr.expr) }
    case 'in':
      return { ...expr, expr: again(expr.expr), list: expr.list.map(again) }
    case 'like':
      return { ...expr, expr: again(expr.expr), pattern: again(expr.pattern) }
    case 'literal':
      return expr
  }
}

function resolveField(chain: readonly string[], scope: Scope): Compiled {
  const { table } = scope
  let names = chain
  if (names.length > 1 && (names[0] === table.name || names[0] === scope.tableAlias)) names = names.slice(1)
  if (names.length === 1) {
    const column = table.column(names[0] as string)
    if (column?.innerJoin) scope.innerJoins?.add(column.innerJoin)
    if (column) return { type: column.type, evaluate: (f) => column.get(f.row) }
  } else if (names.length === 2 && table.jsonKey) {
    const key = table.jsonKey(names[0] as string, names[1] as string)
    if (key) return { type: key.type, evaluate: (f) => key.get(f.row) }
  }
  const joined = table.join?.(names)
  if (joined) return { type: joined.type, evaluate: (f) => joined.get(f.row) }
  if (names[0] === 'person' || names[0] === 'pdi' || names[0] === 'session') {
    throw unsupported(`Lazy joins (${chain.join('.')})`)
  }
  // HogQL's resolver names the first part of the chain it could not resolve
  // (PostHog/posthog@master:posthog/hogql/resolver.py `visit_field`).
  throw new HogQLError('resolution_error', `Unable to resolve field: ${names[0]}`)
}

/** Turns a constant string into the other side's type, once per query, as ClickHouse converts literals. */
function coerceConstant(side: Compiled, target: ValueType, fn: string): Compiled {
  const c = side.constant
  if (!c || c.value === null || side.type.kind !== 'string') return side
  const text = c.value as string
  if (isTemporal(target.kind)) {
    if (target.kind === 'date') {
      // A Date literal is a calendar day, whatever the zone: `'2024-12-20'` is that day.
      const day = parseDateTime(text)
      if (day === undefined)
        throw new HogQLError(
          'type_error',
          `Cannot parse string '${text}' as Date`,
          CLICKHOUSE.cannotParseDate,
        )
      return constant(Math.floor(day / 86_400_000) * 86_400_000, target)
    }
    return constant(parseDateTimeStrict(text, 'DateTime64'), target)
  }
  if (isNumeric(target.kind)) {
    const n = Number(text)
    if (text.trim() === '' || Number.isNaN(n)) {
      throw new HogQLError(
        'type_error',
        `Cannot parse string '${text}' as Float64 in function ${fn}`,
        CLICKHOUSE.cannotParseText,
      )
    }
    return constant(n, target)
  }
  if (target.kind === 'uuid') {
    if (!UUID.test(text))
      throw new HogQLError(
        'type_error',
        `Cannot parse uuid '${text}' in function ${fn}`,
        CLICKHOUSE.cannotParseUuid,
      )
    return constant(text.toLowerCase(), target)
  }
  return side
}

function compatible(a: ValueType, b: ValueType): boolean {
  if (a.kind === 'null' || b.kind === 'null') return true
  if (a.kind === b.kind) return true
  if (isTextual(a.kind) && isTextual(b.kind)) return true
  if (isNumeric(a.kind) && isNumeric(b.kind)) return true
  return isTemporal(a.kind) && isTemporal(b.kind)
}

/** Makes both sides of a comparison comparable, or refuses like ClickHouse does for mismatched types. */
function comparablePair(left: Compiled, right: Compiled, fn: string): [Compiled, Compiled] {
  const l = coerceConstant(left, right.type, fn)
  const r = coerceConstant(right, l.type, fn)
  if (!compatible(l.type, r.type)) {
    throw new HogQLError(
      'type_error',
      `Illegal types of arguments (${l.type.name}, ${r.type.name}) of function ${fn}`,
      CLICKHOUSE.illegalType,
    )
  }
  return [l, r]
}

const COMPARISON_NAMES = {
  '=': 'equals',
  '!=': 'notEquals',
  '<': 'less',
  '<=': 'lessOrEquals',
  '>': 'greater',
  '>=': 'greaterOrEquals',
} as const

const COMPARISON_TESTS: Readonly<Record<keyof typeof COMPARISON_NAMES, (c: number) => boolean>> = {
  '=': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
}

/** SQL LIKE pattern to RegExp: `%` any run, `_` one character, a backslash escapes the next character. */
export function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  let source = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '\\' && i + 1 < pattern.length) {
      source += (pattern[++i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    } else if (c === '%') source += '.*'
    else if (c === '_') source += '.'
    else source += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  return new RegExp(`^${source}$`, caseInsensitive ? 'is' : 's')
}

/** Three-valued logic of AND/OR: NULL when unknown. */
function logical(kind: 'and' | 'or', items: Compiled[]): Compiled {
  const decisive = kind === 'or'
  return {
    type: types.bool(items.some((i) => i.type.nullable)),
    evaluate: (frame) => {
      let unknown = false
      for (const item of items) {
        const v = item.evaluate(frame)
        if (v === null) unknown = true
        else if (isTrue(v) === decisive) return decisive
      }
      return unknown ? null : !decisive
    },
  }
}

function requireLogical(c: Compiled, scope: Scope): void {
  if (!isNumeric(c.type.kind) && c.type.kind !== 'null') {
    throw new HogQLError(
      'type_error',
      `Illegal type ${c.type.name} of a condition in ${scope.clause}`,
      CLICKHOUSE.illegalFilterType,
    )
  }
}

function aggregateSlot(expr: Extract<Expr, { kind: 'call' }>, fn: AggregateFunction, scope: Scope): Compiled {
  const grouping = scope.grouping
  if (!grouping) {
    throw new HogQLError(
      'resolution_error',
      `Aggregate function ${expr.name}() is found in ${scope.clause} in query`,
      CLICKHOUSE.illegalAggregation,
    )
  }
  if (expr.distinct && !fn.allowsDistinct) throw unsupported(`${expr.name}(DISTINCT …)`)
  if (expr.args.length < fn.minArgs || expr.args.length > fn.maxArgs) {
    throw new HogQLError(
      'resolution_error',
      `Aggregation function ${expr.name} expects ${fn.minArgs}-${fn.maxArgs} arguments`,
    )
  }
  const rowScope: Scope = { ...scope, grouping: undefined, clause: `the arguments of ${expr.name}()` }
  for (const arg of expr.args) {
    if (containsAggregate(arg, new Map())) {
      throw new HogQLError(
        'resolution_error',
        `Aggregate function ${expr.name}() is found inside another aggregate function in query`,
        CLICKHOUSE.illegalAggregation,
      )
    }
  }
  const args = expr.args.map((a) => compileExpanded(a, rowScope))
  const type = fn.resultType(args.map((a) => a.type))
  const text = printExpr(expr)
  let index = grouping.slots.findIndex((s) => s.text === text)
  if (index < 0) index = grouping.slots.push({ text, fn, distinct: expr.distinct, args }) - 1
  const at = index
  return { type, evaluate: (frame) => frame.aggregates[at] ?? null }
}

export function newAccumulators(slots: readonly AggregateSlot[]): Accumulator[] {
  return slots.map((s) => s.fn.create(s.distinct))
}

/** Compiles an expression into a closure over frames, checking names and types first (like ClickHouse, before reading data). */
export function compileExpr(expr: Expr, scope: Scope): Compiled {
  return compileExpanded(expandAliases(expr, scope.aliases), scope)
}

/** Aliases are already replaced here; each sub-expression may still be a GROUP BY key. */
function compileExpanded(expanded: Expr, scope: Scope): Compiled {
  if (scope.grouping) {
    const text = printExpr(expanded)
    const keyIndex = scope.grouping.keys.findIndex((k) => k.text === text)
    if (keyIndex >= 0) {
      const key = scope.grouping.keys[keyIndex] as { type: ValueType }
      return { type: key.type, evaluate: (frame) => frame.keys[keyIndex] ?? null }
    }
  }
  return compileNode(expanded, scope)
}

function compileNode(expr: Expr, scope: Scope): Compiled {
  const sub = (e: Expr) => compileExpanded(e, scope)
  switch (expr.kind) {
    case 'literal': {
      const v = expr.value
      if (v === null) return constant(null, types.null())
      if (typeof v === 'string') return constant(v, types.string())
      if (typeof v === 'boolean') return constant(v, types.bool())
      return constant(v, Number.isInteger(v) ? types.int() : types.float())
    }
    case 'field':
      if (scope.grouping) {
        throw new HogQLError(
          'resolution_error',
          `Column \`${expr.chain.join('.')}\` is not under aggregate function and not in GROUP BY keys`,
          CLICKHOUSE.notAnAggregate,
        )
      }
      return resolveField(expr.chain, scope)
    case 'call': {
      const aggregate = lookup(AGGREGATE_FUNCTIONS, expr.name)
      if (aggregate) return aggregateSlot(expr, aggregate, scope)
      const fn = lookup(SCALAR_FUNCTIONS, expr.name)
      if (!fn) throw unsupported(`Function '${expr.name}'`)
      if (expr.distinct)
        throw new HogQLError('syntax_error', `DISTINCT is only allowed in aggregate functions`)
      return fn(expr.args.map(sub))
    }
    case 'compare': {
      const [l, r] = comparablePair(sub(expr.left), sub(expr.right), COMPARISON_NAMES[expr.op])
      const test = COMPARISON_TESTS[expr.op]
      return {
        type: types.bool(l.type.nullable || r.type.nullable),
        evaluate: (frame) => {
          const a = l.evaluate(frame)
          if (a === null) return null
          const b = r.evaluate(frame)
          return b === null ? null : test(compareValues(a, b))
        },
      }
    }
    case 'arithmetic': {
      const l = sub(expr.left)
      const r = sub(expr.right)
      for (const side of [l, r]) {
        if (!isNumeric(side.type.kind) && side.type.kind !== 'null') {
          throw new HogQLError(
            'type_error',
            `Illegal type ${side.type.name} of argument of operator ${expr.op}`,
            CLICKHOUSE.illegalType,
          )
        }
      }
      const op = expr.op
      const float = op === '/' || l.type.name.includes('Float') || r.type.name.includes('Float')
      return {
        type: float
          ? types.float(l.type.nullable || r.type.nullable)
          : types.int(l.type.nullable || r.type.nullable),
        evaluate: (frame) => {
          const a = l.evaluate(frame)
          const b = r.evaluate(frame)
          if (a === null || b === null) return null
          const x = Number(a)
          const y = Number(b)
          if (op === '+') return x + y
          if (op === '-') return x - y
          if (op === '*') return x * y
          if (op === '/') return x / y
          return y === 0 ? null : x % y
        },
      }
    }
    case 'and':
    case 'or': {
      const items = expr.items.map(sub)
      for (const item of items) requireLogical(item, scope)
      return logical(expr.kind, items)
    }
    case 'not': {
      const inner = sub(expr.expr)
      requireLogical(inner, scope)
      return {
        type: types.bool(inner.type.nullable),
        evaluate: (frame) => {
          const v = inner.evaluate(frame)
          return v === null ? null : !isTrue(v)
        },
      }
    }
    case 'negate': {
      const inner = sub(expr.expr)
      if (!isNumeric(inner.type.kind))
        throw new HogQLError(
          'type_error',
          `Illegal type ${inner.type.name} of argument of negate`,
          CLICKHOUSE.illegalType,
        )
      return {
        type: inner.type,
        evaluate: (frame) => {
          const v = inner.evaluate(frame)
          return v === null ? null : -Number(v)
        },
      }
    }
    case 'isNull': {
      const inner = sub(expr.expr)
      const negated = expr.negated
      return { type: types.bool(), evaluate: (frame) => (inner.evaluate(frame) === null) !== negated }
    }
    case 'in':
      return compileIn(expr, scope)
    case 'like':
      return compileLike(expr, scope)
  }
}

function compileIn(expr: Extract<Expr, { kind: 'in' }>, scope: Scope): Compiled {
  const left = compileExpanded(expr.expr, scope)
  const fn = expr.negated ? 'notIn' : 'in'
  const members = new Set<Value>()
  for (const item of expr.list) {
    const c = compileExpanded(item, scope)
    if (!c.constant) throw unsupported('IN with a non-constant list')
    const [coerced] = comparablePair(c, left, fn)
    const v = coerced.constant?.value ?? null
    if (v !== null) members.add(typeof v === 'boolean' ? Number(v) : v)
  }
  const negated = expr.negated
  return {
    type: types.bool(left.type.nullable),
    evaluate: (frame) => {
      const v = left.evaluate(frame)
      if (v === null) return null
      return members.has(typeof v === 'boolean' ? Number(v) : v) !== negated
    },
  }
}

function compileLike(expr: Extract<Expr, { kind: 'like' }>, scope: Scope): Compiled {
  const fn = `${expr.negated ? 'not' : ''}${expr.caseInsensitive ? 'ilike' : 'like'}`
  const left = compileExpanded(expr.expr, scope)
  const pattern = compileExpanded(expr.pattern, scope)
  for (const side of [left, pattern]) {
    if (!isTextual(side.type.kind) && side.type.kind !== 'null') {
      throw new HogQLError(
        'type_error',
        `Illegal type ${side.type.name} of argument of function ${fn}`,
        CLICKHOUSE.illegalType,
      )
    }
  }
  const cache = new Map<string, RegExp>()
  const regexFor = (p: string) => {
    let re = cache.get(p)
    if (!re) {
      re = likeToRegExp(p, expr.caseInsensitive)
      cache.set(p, re)
    }
    return re
  }
  const negated = expr.negated
  return {
    type: types.bool(left.type.nullable || pattern.type.nullable),
    evaluate: (frame) => {
      const v = left.evaluate(frame)
      const p = pattern.evaluate(frame)
      if (v === null || p === null) return null
      return regexFor(p as string).test(v as string) !== negated
    },
  }
}
