import type { Value, ValueType } from './values.js'

export interface HogQLColumn {
  readonly type: ValueType
  get(row: number): Value
  /**
   * For a column HogQL reads through an INNER JOIN (`events.person_id` when persons-on-events is off):
   * whether the row found a match. A query that reads the column anywhere drops the rows that did not.
   */
  readonly innerJoin?: (row: number) => boolean
}

/**
 * A table the interpreter can query: rows are indexes, columns are functions of a row. The tables and their
 * columns are HogQL's (PostHog/posthog@006439298dc4:posthog/hogql/database/database.py `Database`); which
 * ones the emulator has is in posthog-tables.ts.
 */
export interface HogQLTable {
  readonly name: string
  /** What `SELECT *` returns: the table's fields minus its `avoid_asterisk_fields` (posthog-tables.ts). */
  readonly starColumns: readonly string[]
  column(name: string): HogQLColumn | undefined
  /** `<json column>.<key>`, e.g. `properties.$browser`; undefined when the column holds no JSON. */
  jsonKey?(column: string, key: string): HogQLColumn | undefined
  /**
   * A column of a lazily joined table (`session.$entry_utm_source` on events), as HogQL resolves a field
   * chain through a `LazyJoin`; undefined when the chain names no such join or column.
   */
  join?(chain: readonly string[]): HogQLColumn | undefined
  rows(): Iterable<number>
  /** Rows already sorted by `column`, when the table keeps them that way (events by timestamp). */
  orderedRows?(column: string, desc: boolean): Iterable<number> | undefined
  /**
   * The time column the table is sorted and partitioned by, so a query bounded on it reads only that
   * part of the table (see scan.ts); absent when every query reads the whole table.
   */
  readonly timeKey?: { readonly column: string; time(row: number): number }
}

export function range(count: number): Iterable<number> {
  return {
    *[Symbol.iterator]() {
      for (let i = 0; i < count; i++) yield i
    },
  }
}
