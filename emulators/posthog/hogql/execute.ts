import { HOGQL_DEFAULT_LIMIT, HOGQL_MAX_LIMIT } from '../constants.js'
import { type Expr, printExpr, type SelectQuery } from './ast.js'
import {
  type AggregateSlot,
  compileExpr,
  containsAggregate,
  expandAliases,
  type GroupKey,
  isAggregateCall,
  newAccumulators,
  type Scope,
} from './compile.js'
import { CLICKHOUSE, HogQLError, unsupported } from './errors.js'
import type { Accumulator, Compiled, Frame } from './functions.js'
import { parseHogQL } from './parser.js'
import type { HogQLTable } from './table.js'
import { compareValues, isTrue, outputValue, type Value } from './values.js'
import { withZone } from './zone.js'

export interface HogQLResult {
  readonly columns: string[]
  readonly types: [string, string][]
  readonly results: unknown[][]
  readonly hasMore: boolean
  readonly limit: number
  readonly offset: number
}

interface Ordering {
  readonly key: Compiled
  readonly desc: boolean
  readonly nullsFirst: boolean
}

/** A row (or group) that passed the filters, with its ORDER BY values computed once. */
interface Candidate {
  readonly frame: Frame
  readonly sortKeys: Value[]
}

function columnName(expr: Expr, alias: string | undefined): string {
  if (alias !== undefined) return alias
  if (expr.kind === 'field') return expr.chain[expr.chain.length - 1] as string
  return printExpr(expr)
}

function compareCandidates(orderings: readonly Ordering[]) {
  return (a: Candidate, b: Candidate): number => {
    for (let i = 0; i < orderings.length; i++) {
      const o = orderings[i] as Ordering
      const x = a.sortKeys[i] ?? null
      const y = b.sortKeys[i] ?? null
      if (x === null || y === null) {
        if (x === y) continue
        return (x === null) === o.nullsFirst ? -1 : 1
      }
      const c = compareValues(x, y)
      if (c !== 0) return o.desc ? -c : c
    }
    return 0
  }
}

function frameFor(row: number): Frame {
  return { row, keys: [], aggregates: [] }
}

/**
 * Runs a HogQL query of the supported subset against the given tables and answers like PostHog's query API:
 * at most `LIMIT` rows (100 by default, 50 000 at most: constants.ts) and `hasMore` when more rows matched,
 * which PostHog learns by asking for one row more than the limit
 * (PostHog/posthog@master:posthog/hogql_queries/insights/paginators.py `HogQLHasMorePaginator`).
 */
export function executeHogQL(
  text: string,
  tableNamed: (name: string) => HogQLTable | undefined,
  /** The project's time zone: days, hours and date-time results are in it (zone.ts). */
  timeZone = 'UTC',
  /** Called with the parsed WHERE before any row is read, to refuse a query over its budget. */
  beforeScan?: (where: Expr | undefined, table: HogQLTable, tableAlias?: string) => void,
): HogQLResult {
  return withZone(timeZone, () => executeInZone(text, tableNamed, beforeScan))
}

function executeInZone(
  text: string,
  tableNamed: (name: string) => HogQLTable | undefined,
  beforeScan?: (where: Expr | undefined, table: HogQLTable, tableAlias?: string) => void,
): HogQLResult {
  const query = parseHogQL(text)
  const table = tableNamed(query.from.table)
  // PostHog/posthog@006439298dc4:posthog/hogql/database/database.py `Database.get_table`.
  if (!table) throw new HogQLError('resolution_error', `Unknown table "${query.from.table}".`)
  const limit = Math.min(query.limit ?? HOGQL_DEFAULT_LIMIT, HOGQL_MAX_LIMIT)
  const offset = query.offset ?? 0
  const items = query.select.flatMap((item) =>
    item.expr
      ? [{ expr: item.expr, alias: item.alias }]
      : table.starColumns.map((c) => ({ expr: field(c), alias: undefined })),
  )
  const aliases = new Map<string, Expr>()
  for (const item of items) if (item.alias !== undefined) aliases.set(item.alias, item.expr)
  const base: Scope = {
    table,
    aliases,
    clause: 'SELECT',
    innerJoins: new Set(),
    ...(query.from.alias ? { tableAlias: query.from.alias } : {}),
  }

  if (query.where && containsAggregate(query.where, aliases)) {
    // ClickHouse's ILLEGAL_AGGREGATION, which PostHog passes on (hogql/errors.ts)
    // (ClickHouse/ClickHouse@master:src/Analyzer/AggregationUtils.cpp "Aggregate function {} is found {} in query").
    throw new HogQLError(
      'resolution_error',
      `Aggregate function ${aggregateNameIn(expandAliases(query.where, aliases))} is found in WHERE in query`,
      CLICKHOUSE.illegalAggregation,
    )
  }
  const where = query.where ? compileExpr(query.where, { ...base, clause: 'WHERE' }) : undefined
  beforeScan?.(query.where, table, query.from.alias)
  const grouped =
    query.groupBy.length > 0 ||
    items.some((i) => containsAggregate(i.expr, aliases)) ||
    (query.having !== undefined && containsAggregate(query.having, aliases)) ||
    query.orderBy.some((o) => containsAggregate(o.expr, aliases))
  if (query.having && !grouped) throw unsupported('HAVING without GROUP BY or an aggregate')

  const run = grouped ? runGrouped : runRows
  const { columns, rows, hasMore } = run(query, items, base, where, limit, offset)
  return {
    columns: columns.map((c) => c.name),
    types: columns.map((c) => [c.name, c.compiled.type.name]),
    results: rows.map((frame) =>
      columns.map((c) => outputValue(c.compiled.evaluate(frame), c.compiled.type)),
    ),
    hasMore,
    limit,
    offset,
  }
}

/** The first aggregate call in an expression, printed as ClickHouse names it in its message (`count()`). */
function aggregateNameIn(expr: Expr): string {
  return firstAggregate(expr) ?? 'aggregate'
}

function firstAggregate(e: Expr): string | undefined {
  const first = (items: readonly Expr[]) => items.map(firstAggregate).find((n) => n !== undefined)
  switch (e.kind) {
    case 'call':
      return isAggregateCall(e) ? `${e.name}()` : first(e.args)
    case 'compare':
    case 'arithmetic':
      return first([e.left, e.right])
    case 'and':
    case 'or':
      return first(e.items)
    case 'not':
    case 'negate':
    case 'isNull':
      return firstAggregate(e.expr)
    case 'in':
      return first([e.expr, ...e.list])
    case 'like':
      return first([e.expr, e.pattern])
    default:
      return undefined
  }
}

function field(name: string): Expr {
  return { kind: 'field', chain: [name] }
}

interface Projection {
  readonly name: string
  readonly compiled: Compiled
}

interface RunOutput {
  readonly columns: Projection[]
  readonly rows: Frame[]
  readonly hasMore: boolean
}

type Items = readonly { readonly expr: Expr; readonly alias: string | undefined }[]

function project(items: Items, scope: Scope): Projection[] {
  return items.map((i) => ({ name: columnName(i.expr, i.alias), compiled: compileExpr(i.expr, scope) }))
}

function orderingsOf(query: SelectQuery, scope: Scope): Ordering[] {
  return query.orderBy.map((o) => ({
    key: compileExpr(o.expr, { ...scope, clause: 'ORDER BY' }),
    desc: o.desc,
    nullsFirst: o.nullsFirst,
  }))
}

/** Whether a row survives the INNER JOINs the compiled query reads through (all compiled by now). */
function joinedRow(scope: Scope): (row: number) => boolean {
  const joins = [...(scope.innerJoins ?? [])]
  return joins.length === 0 ? () => true : (row) => joins.every((matched) => matched(row))
}

function candidate(frame: Frame, orderings: readonly Ordering[]): Candidate {
  return { frame, sortKeys: orderings.map((o) => o.key.evaluate(frame)) }
}

/** Ungrouped queries: filter rows, order them, page them. */
function runRows(
  query: SelectQuery,
  items: Items,
  scope: Scope,
  where: Compiled | undefined,
  limit: number,
  offset: number,
): RunOutput {
  const columns = project(items, scope)
  const orderings = orderingsOf(query, scope)
  const joined = joinedRow(scope)
  const passes = (frame: Frame) => joined(frame.row) && (!where || isTrue(where.evaluate(frame)))
  const wanted = offset + limit + 1
  let matched: Candidate[] = []

  if (query.distinct) {
    const seen = new Set<string>()
    for (const row of scope.table.rows()) {
      const frame = frameFor(row)
      if (!passes(frame)) continue
      const key = JSON.stringify(columns.map((c) => c.compiled.evaluate(frame)))
      if (seen.has(key)) continue
      seen.add(key)
      matched.push(candidate(frame, orderings))
    }
    matched.sort(compareCandidates(orderings))
  } else if (orderings.length === 0) {
    for (const row of scope.table.rows()) {
      const frame = frameFor(row)
      if (passes(frame)) matched.push(candidate(frame, orderings))
      if (matched.length >= wanted) break
    }
  } else {
    matched = orderedCandidates(query, scope, orderings, passes, wanted)
  }
  return {
    columns,
    rows: matched.slice(offset, offset + limit).map((c) => c.frame),
    hasMore: matched.length > offset + limit,
  }
}

/**
 * Sorted candidates. When the table keeps rows sorted by the first ORDER BY column (events by timestamp), it
 * reads them in that order and stops once enough rows are in and the first key changes, so a page of recent
 * events does not sort a million rows; ties on the first key are still ordered by the other keys.
 */
function orderedCandidates(
  query: SelectQuery,
  scope: Scope,
  orderings: readonly Ordering[],
  passes: (frame: Frame) => boolean,
  wanted: number,
): Candidate[] {
  const first = query.orderBy[0]
  const firstExpr = first ? expandAliases(first.expr, scope.aliases) : undefined
  const sorted =
    first && firstExpr?.kind === 'field' && firstExpr.chain.length === 1 && !first.nullsFirst
      ? scope.table.orderedRows?.(firstExpr.chain[0] as string, first.desc)
      : undefined
  const matched: Candidate[] = []
  if (sorted) {
    for (const row of sorted) {
      const frame = frameFor(row)
      if (!passes(frame)) continue
      const c = candidate(frame, orderings)
      const last = matched[matched.length - 1]
      if (
        matched.length >= wanted &&
        last &&
        compareValues(last.sortKeys[0] ?? null, c.sortKeys[0] ?? null) !== 0
      ) {
        break
      }
      matched.push(c)
    }
  } else {
    for (const row of scope.table.rows()) {
      const frame = frameFor(row)
      if (passes(frame)) matched.push(candidate(frame, orderings))
    }
  }
  return matched.sort(compareCandidates(orderings))
}

/** Grouped queries: GROUP BY keys (one group without GROUP BY), aggregates per group, HAVING, order, page. */
function runGrouped(
  query: SelectQuery,
  items: Items,
  base: Scope,
  where: Compiled | undefined,
  limit: number,
  offset: number,
): RunOutput {
  const keyScope: Scope = { ...base, clause: 'GROUP BY' }
  const keyExprs = query.groupBy.map((g) => {
    if (containsAggregate(g, base.aliases))
      throw new HogQLError(
        'resolution_error',
        `Aggregate function ${aggregateNameIn(expandAliases(g, base.aliases))} is found in GROUP BY in query`,
        CLICKHOUSE.illegalAggregation,
      )
    return expandAliases(g, base.aliases)
  })
  const keyCompiled = keyExprs.map((g) => compileExpr(g, keyScope))
  const keys: GroupKey[] = keyExprs.map((g, i) => ({
    text: printExpr(g),
    type: (keyCompiled[i] as Compiled).type,
  }))
  const slots: AggregateSlot[] = []
  const scope: Scope = { ...base, grouping: { keys, slots } }
  const columns = project(items, scope)
  const having = query.having ? compileExpr(query.having, { ...scope, clause: 'HAVING' }) : undefined
  const orderings = orderingsOf(query, scope)

  const groups = new Map<string, { keys: Value[]; accumulators: Accumulator[] }>()
  const frame = frameFor(0)
  const joined = joinedRow(base)
  for (const row of base.table.rows()) {
    frame.row = row
    if (!joined(row) || (where && !isTrue(where.evaluate(frame)))) continue
    const values = keyCompiled.map((k) => k.evaluate(frame))
    const id = JSON.stringify(values)
    let group = groups.get(id)
    if (!group) {
      group = { keys: values, accumulators: newAccumulators(slots) }
      groups.set(id, group)
    }
    for (let s = 0; s < slots.length; s++) {
      const slot = slots[s] as AggregateSlot
      ;(group.accumulators[s] as Accumulator).add(slot.args.map((a) => a.evaluate(frame)))
    }
  }
  if (query.groupBy.length === 0 && groups.size === 0)
    groups.set('', { keys: [], accumulators: newAccumulators(slots) })

  const matched: Candidate[] = []
  for (const group of groups.values()) {
    const groupFrame: Frame = {
      row: -1,
      keys: group.keys,
      aggregates: group.accumulators.map((a) => a.result()),
    }
    if (having && !isTrue(having.evaluate(groupFrame))) continue
    matched.push(candidate(groupFrame, orderings))
  }
  if (orderings.length > 0) matched.sort(compareCandidates(orderings))
  return {
    columns,
    rows: matched.slice(offset, offset + limit).map((c) => c.frame),
    hasMore: matched.length > offset + limit,
  }
}
