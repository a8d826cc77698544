import { MAX_LIMIT } from './constants.js'
import { badRequest } from './errors.js'

type Query = Readonly<Record<string, string | string[] | undefined>>
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value)

/** A row's place in its list's order: `[1, sortValue, id]`, as Lever's own tokens are (ordered rows, then id). */
export type SortKey = readonly [number, string]

/**
 * Lists answer `{data, hasNext, next}`; `next` is an opaque offset token to send back as `offset`, and `limit`
 * is "between 1 and 100" (https://hire.lever.co/developer/documentation#pagination). Lever's tokens are the
 * URL-encoded JSON of the last row's sort keys, e.g. `%5B1%2C1750233409740%2C%22…%22%5D`
 * (amp-labs/connectors@10f046f:providers/lever/test/opportunities.json); sent back as a query parameter the
 * token is encoded once more by most clients, so both forms are read.
 */
export function page<T>(
  rows: readonly T[],
  query: Query,
  keyOf: (row: T) => SortKey,
  render: (row: T) => unknown,
): { data: unknown[]; hasNext: boolean; next?: string } {
  const limitText = one(query.limit)
  const limit = limitText === undefined ? MAX_LIMIT : Number(limitText)
  if (!/^\d+$/.test(limitText ?? '100') || limit < 1 || limit > MAX_LIMIT) {
    throw badRequest(`Invalid limit: must be an integer between 1 and ${MAX_LIMIT}`)
  }
  let start = 0
  const offset = one(query.offset)
  if (offset !== undefined) {
    let text = offset
    try {
      if (text.startsWith('%')) text = decodeURIComponent(text)
      const [, sort, id] = JSON.parse(text) as [number, number, string]
      if (typeof sort !== 'number' || typeof id !== 'string') throw new Error('shape')
      // The first row after the token's row in list order.
      const at = rows.findIndex((row) => {
        const [s, rowId] = keyOf(row)
        return s === sort && rowId === id
      })
      start = at < 0 ? rows.length : at + 1
    } catch {
      throw badRequest('Invalid offset token')
    }
  }
  const slice = rows.slice(start, start + limit)
  const hasNext = start + limit < rows.length
  const last = slice[slice.length - 1]
  const next =
    hasNext && last !== undefined ? encodeURIComponent(JSON.stringify([1, ...keyOf(last)])) : undefined
  return { data: slice.map(render), hasNext, ...(next ? { next } : {}) }
}

/** A filter given repeated (`stage_id=a&stage_id=b`) or comma-joined; undefined when absent. */
export function many(query: Query, name: string): string[] | undefined {
  const value = query[name]
  if (value === undefined) return undefined
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter(Boolean)
}

/** A millisecond timestamp filter (`created_at_start` and kin); anything else is a 400. */
export function millis(query: Query, name: string): number | undefined {
  const text = one(query[name])
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text)) throw badRequest(`Invalid ${name}: expected a timestamp in milliseconds`)
  return Number(text)
}

export { one }
