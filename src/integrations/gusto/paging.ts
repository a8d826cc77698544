import { tooManyPages } from '../page-bound.js'
import { rawThenOwn } from '../raw-lists.js'
import type { HandlerContext } from '../types.js'

/**
 * The most rows asked of one Gusto page. Gusto pages with `page` (1-based) and `per` (default 25) and
 * states a maximum of 100 where it states one (docs.gusto.com/app-integrations/docs/pagination; payroll
 * employee compensations "maximum page size of 100"); asking for no more keeps every endpoint honest.
 */
export const GUSTO_MAX_PER = 100

/**
 * Pages read at most where Unigate needs a whole Gusto list (a payroll's employees, a company's lists):
 * 10,000 rows. Gusto serves small and mid-sized companies; past this the read fails naming the cap
 * (page-bound.ts) rather than reading on while the provider keeps answering full pages.
 */
export const GUSTO_MAX_PAGES = 100

/** Why `page` and `per` are Unigate's on every Gusto call (the definition's `rawOwned`). */
export const GUSTO_PAGING = "Unigate reads Gusto's pages itself; page with limit and offset"

/** The pages of `per` rows that cover `[offset, offset + limit)`, and the rows to drop from the first. */
export function gustoPages(offset: number, limit: number) {
  const per = Math.min(limit, GUSTO_MAX_PER)
  const first = Math.floor(offset / per) + 1
  const last = Math.floor((offset + limit - 1) / per) + 1
  return { per, first, last, skip: offset - (first - 1) * per }
}

/** Rows `[offset, offset + limit)` of a paged Gusto list, reading only the pages that hold them. */
export async function readGustoRange<T>(
  ctx: HandlerContext,
  path: string,
  query: Readonly<Record<string, string | number | undefined>>,
  offset: number,
  limit: number,
): Promise<T[]> {
  const { per, first, last, skip } = gustoPages(offset, limit)
  const rows: T[] = []
  for (let page = first; page <= last; page++) {
    const got = await ctx.client.json<T[]>({
      path,
      query: rawThenOwn(ctx.rawParams, { ...query, page, per }),
    })
    if (!Array.isArray(got)) throw new TypeError(`${path} answered something other than a list`)
    rows.push(...got)
    if (got.length < per) break
  }
  return rows.slice(skip, skip + limit)
}

/** Every row of a paged Gusto list, `GUSTO_MAX_PER` at a time (for lists that must be read whole). */
export async function readAllGusto<T>(
  ctx: HandlerContext,
  path: string,
  query: Readonly<Record<string, string | number | undefined>> = {},
): Promise<T[]> {
  const rows: T[] = []
  for (let page = 1; ; page++) {
    if (page > GUSTO_MAX_PAGES)
      throw tooManyPages('Gusto', `rows of ${path}`, GUSTO_MAX_PAGES * GUSTO_MAX_PER)
    const got = await ctx.client.json<T[]>({
      path,
      query: rawThenOwn(ctx.rawParams, { ...query, page, per: GUSTO_MAX_PER }),
    })
    if (!Array.isArray(got)) throw new TypeError(`${path} answered something other than a list`)
    rows.push(...got)
    if (got.length < GUSTO_MAX_PER) return rows
  }
}
