import type { ListCursors } from '../cursors.js'

export interface TokenPage<T> {
  readonly items: readonly T[]
  /** Absent or empty on the last page (Google omits it). */
  readonly nextPageToken?: string
}

export interface TokenWindowRequest<T> {
  readonly cursors: ListCursors
  /** Identifies the connection and the query, so a token is only reused for the same listing. */
  readonly scope: string
  readonly offset: number
  readonly limit: number
  /** One provider page; it must ask for the same page size on every call, so remembered tokens stay valid. */
  fetchPage(pageToken: string | undefined): Promise<TokenPage<T>>
}

/**
 * Unified `offset`/`limit` onto Google's `pageToken` paging. Every token seen is remembered by the offset
 * it starts at, so reading page N again, or page N+1 after page N, starts from the nearest known token
 * instead of walking from the first page.
 */
export async function readTokenWindow<T>(req: TokenWindowRequest<T>): Promise<T[]> {
  const { cursors, scope, offset, limit } = req
  const start = await cursors.walkStart(scope, offset)
  let position = start.offset
  let token = start.cursor
  const out: T[] = []
  const end = offset + limit
  while (position < end) {
    const page = await req.fetchPage(token)
    const from = Math.max(0, offset - position)
    const to = Math.min(page.items.length, end - position)
    if (from < to) out.push(...page.items.slice(from, to))
    position += page.items.length
    if (!page.nextPageToken || page.items.length === 0) break
    token = page.nextPageToken
    cursors.set(scope, position, token)
  }
  return out
}
