import type { FastifyReply, FastifyRequest } from 'fastify'
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './constants.js'
import { invalid } from './errors.js'

type Query = Readonly<Record<string, string | string[] | undefined>>

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[value.length - 1] : value)

function wholeNumber(query: Query, name: string, min: number, max: number, fallback: number): number {
  const text = one(query[name])
  if (text === undefined) return fallback
  const n = Number(text)
  if (!/^\d+$/.test(text) || n < min || n > max) {
    throw invalid(name, `Must be an integer between ${min} and ${max}`)
  }
  return n
}

/**
 * Page-numbered lists: `per_page` "between 1 and 500. Defaults to 100", `page` "Returns the n-th chunk of
 * per_page objects", `skip_count` "will remove last from the link response header"
 * (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_applications.md, List Applications). The
 * answer carries an RFC 5988 `Link` header with `next`, `prev` and `last`; "when this header is not set,
 * there is only one page" (grnhse/greenhouse-api-docs@0c37c31:source/includes/harvest/_introduction.md, Pagination).
 */
export function sendPage<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  rows: readonly T[],
  render: (row: T) => unknown,
): unknown[] {
  const query = request.query as Query
  const perPage = wholeNumber(query, 'per_page', 1, MAX_PER_PAGE, DEFAULT_PER_PAGE)
  const page = wholeNumber(query, 'page', 1, Number.MAX_SAFE_INTEGER, 1)
  const lastPage = Math.max(1, Math.ceil(rows.length / perPage))
  const links: string[] = []
  const link = (n: number, rel: string) => {
    const url = new URL(request.url, `http://${request.headers.host ?? '127.0.0.1'}`)
    url.searchParams.set('page', String(n))
    url.searchParams.set('per_page', String(perPage))
    links.push(`<${url.toString()}>; rel="${rel}"`)
  }
  if (page < lastPage) link(page + 1, 'next')
  if (page > 1) link(Math.min(page - 1, lastPage), 'prev')
  if (lastPage > 1 && one(query.skip_count) !== 'true') link(lastPage, 'last')
  if (links.length > 0) reply.header('link', links.join(', '))
  return rows.slice((page - 1) * perPage, page * perPage).map(render)
}
