import { ApiError } from '../../errors.js'
import type { ProviderRequest } from '../http-client.js'
import { linkOf } from '../link-header.js'
import type { HandlerContext } from '../types.js'

/**
 * Harvest v3's largest page: `per_page` 1-500, given on the first request only
 * (https://harvestdocs.greenhouse.io/docs/pagination; the bound from
 * airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml,
 * whose 422 handling names "per_page outside 1-500").
 */
export const MAX_PER_PAGE = 500

export type Query = Readonly<Record<string, string | number | undefined>>

/**
 * One list page: the rows and the `rel="next"` address, absolute, followed only on the connection's own origin.
 * Greenhouse's links are absolute (https://harvestdocs.greenhouse.io/docs/pagination shows
 * `<https://harvest.greenhouse.io/v3/jobs?cursor=...>; rel="next"`), but a relative one is resolved
 * against the address of this request, as RFC 8288 section 3.2 says, rather than sent as a path under the base.
 */
export async function page<T>(
  ctx: HandlerContext,
  request: ProviderRequest,
): Promise<{ rows: T[]; next?: string }> {
  const res = await ctx.client.send(request)
  if (!Array.isArray(res.body)) throw new TypeError('a Harvest list answered something other than an array')
  const link = linkOf(res.headers.link, 'next')
  // Resolved and checked now (a link off the connection's origin is a 502), so that what is remembered as a
  // cursor, and later sent, is the address that was checked.
  const next = link ? ctx.client.linkFrom(request, link) : undefined
  return { rows: res.body as T[], ...(next ? { next } : {}) }
}

/** Every row of a list, failing (never truncating) past `maxPages` pages of 500. */
export async function readAll<T>(
  ctx: HandlerContext,
  path: string,
  filters: Query,
  maxPages: number,
): Promise<T[]> {
  const rows: T[] = []
  let request: ProviderRequest = { path, query: { ...filters, per_page: MAX_PER_PAGE } }
  for (let pages = 1; ; pages++) {
    const got = await page<T>(ctx, request)
    rows.push(...got.rows)
    if (!got.next) return rows
    if (pages >= maxPages) {
      throw new ApiError(
        502,
        `Greenhouse lists more than ${maxPages * MAX_PER_PAGE} ${path.slice(1)} for these applications; Unigate reads at most that many`,
      )
    }
    request = { path: got.next }
  }
}
