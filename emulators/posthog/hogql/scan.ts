import type { Expr } from './ast.js'
import type { HogQLTable } from './table.js'
import { parseDateTime } from './values.js'
import { currentZone } from './zone.js'

/**
 * How many rows a query reads, the emulator's measure of its execution time. ClickHouse reads only the
 * parts of a table that a WHERE bound on the table's time key can select (events are partitioned by month
 * and sorted by day: PostHog/posthog@master:posthog/models/event/sql.py `EVENTS_TABLE_SQL`, `PARTITION BY
 * toYYYYMM(timestamp)`, `ORDER BY (team_id, toDate(timestamp), …)`; sessions by their time-ordered id, onto
 * which HogQL turns `$start_timestamp` bounds: PostHog/posthog@0011d5503e8b:posthog/hogql/database/schema/
 * sessions_v2.py `SessionMinTimestampWhereClauseExtractorV2`), so a query bounded in time reads the rows in
 * that range and an unbounded one reads the whole table. Only plain bounds joined by AND count: `timestamp >=
 * '…'`, `timestamp < toDateTime('…')`, and the same with `$start_timestamp` on sessions.
 */
export function rowsScanned(where: Expr | undefined, table: HogQLTable, tableAlias?: string): number {
  let total = 0
  const key = table.timeKey
  const rows = table.rows()
  if (!key) {
    for (const _ of rows) total++
    return total
  }
  const { lower, upper } = timeBounds(where, key.column, tableAlias)
  for (const row of rows) {
    const t = key.time(row)
    if (t >= lower && t <= upper) total++
  }
  return total
}

function isKeyField(e: Expr, column: string, alias: string | undefined): boolean {
  if (e.kind !== 'field') return false
  const chain = e.chain
  return (
    (chain.length === 1 && chain[0] === column) ||
    (chain.length === 2 && alias !== undefined && chain[0] === alias && chain[1] === column)
  )
}

function instantOf(e: Expr): number | undefined {
  if (e.kind === 'literal' && typeof e.value === 'string') return parseDateTime(e.value, currentZone())
  if (e.kind === 'call' && (e.name === 'toDateTime' || e.name === 'toDateTime64') && e.args[0]) {
    return instantOf(e.args[0])
  }
  return undefined
}

const FLIP = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const

function timeBounds(where: Expr | undefined, column: string, alias: string | undefined) {
  let lower = Number.NEGATIVE_INFINITY
  let upper = Number.POSITIVE_INFINITY
  const conjuncts: Expr[] = []
  const collect = (e: Expr) => (e.kind === 'and' ? e.items.forEach(collect) : conjuncts.push(e))
  if (where) collect(where)
  for (const c of conjuncts) {
    if (c.kind !== 'compare' || c.op === '=' || c.op === '!=') continue
    let op: '<' | '<=' | '>' | '>=' = c.op
    let value: number | undefined
    if (isKeyField(c.left, column, alias)) value = instantOf(c.right)
    else if (isKeyField(c.right, column, alias)) {
      value = instantOf(c.left)
      op = FLIP[op]
    }
    if (value === undefined) continue
    if (op === '>' || op === '>=') lower = Math.max(lower, value)
    else upper = Math.min(upper, value)
  }
  return { lower, upper }
}
