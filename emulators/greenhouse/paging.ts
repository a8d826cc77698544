import type { FastifyReply, FastifyRequest } from 'fastify'
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './constants.js'
import { invalid } from './errors.js'

export type Query = Readonly<Record<string, string | string[] | undefined>>

export const one = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value[value.length - 1] : value

/** What a cursor carries: "all filtering and pagination settings from the initial request". */
interface CursorState {
  readonly query: Record<string, string>
  readonly perPage: number
  readonly position: number
  /** When the cursor was issued and in which epoch (see `CursorClock`); unset on a first request. */
  readonly issuedAt?: number
  readonly epoch?: number
}

/** What decides whether a cursor still works: its lifetime and the current epoch (GreenhouseState). */
export interface CursorClock {
  readonly cursorTtlMs: number
  readonly cursorEpoch: number
}

/**
 * The query a list request stands for. v3 pages by cursor (https://harvestdocs.greenhouse.io/docs/pagination):
 * - "The cursor value is a URL-safe, Base64-encoded payload" holding the initial request's filters and
 *   `per_page`;
 * - "When you pass a cursor, it must be the only query parameter" (`?cursor=...&per_page=50` "will fail";
 *   422: "a cursor combined with other query parameters, an expired cursor, or per_page outside 1-500",
 *   airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml, error_handler);
 * - there is no `page` parameter ("The page parameter is no longer supported",
 *   https://harvestdocs.greenhouse.io/docs/step-by-step-migration-instructions): 422 here.
 */
export function listQuery(request: FastifyRequest, clock: CursorClock): CursorState {
  const query = request.query as Query
  const cursor = one(query.cursor)
  if (cursor !== undefined) {
    if (Object.keys(query).length > 1) invalidCursor('cursor must be the only query parameter')
    let state: CursorState
    try {
      state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorState
      if (typeof state.perPage !== 'number' || typeof state.position !== 'number') throw new Error()
    } catch {
      return invalidCursor('Invalid cursor')
    }
    // An expired cursor is a 422 too (DEFAULT_CURSOR_TTL_MS in constants.ts; the message is ours).
    const issuedAt = state.issuedAt ?? 0
    if ((state.epoch ?? 0) < clock.cursorEpoch || Date.now() - issuedAt > clock.cursorTtlMs)
      invalidCursor('The cursor has expired; make the first request of the listing again')
    return state
  }
  if (query.page !== undefined)
    throw invalid('page', 'The page parameter is not supported; follow the Link header')
  const text = one(query.per_page)
  const perPage = text === undefined ? DEFAULT_PER_PAGE : Number(text)
  if (text !== undefined && (!/^\d+$/.test(text) || perPage < 1 || perPage > MAX_PER_PAGE))
    throw invalid('per_page', `Must be an integer between 1 and ${MAX_PER_PAGE}`)
  const filters: Record<string, string> = {}
  for (const [k, v] of Object.entries(query))
    if (k !== 'per_page' && one(v) !== undefined) filters[k] = one(v) as string
  return { query: filters, perPage, position: 0 }
}

function invalidCursor(message: string): never {
  throw invalid('cursor', message)
}

/**
 * One page from `position`, and an RFC 5988 `Link` header with only `rel="next"` when more follow: "Harvest
 * v3 currently returns only a next link (no prev or last)"; "When the Link header is missing or empty,
 * you're on the last page" (https://harvestdocs.greenhouse.io/docs/pagination).
 */
export function sendPage<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  state: CursorState,
  rows: readonly T[],
  render: (row: T) => unknown,
  clock: CursorClock,
): unknown[] {
  const end = state.position + state.perPage
  if (end < rows.length) {
    const next: CursorState = { ...state, position: end, issuedAt: Date.now(), epoch: clock.cursorEpoch }
    const url = new URL(request.url, `http://${request.headers.host ?? '127.0.0.1'}`)
    url.search = ''
    url.searchParams.set('cursor', Buffer.from(JSON.stringify(next)).toString('base64url'))
    reply.header('link', `<${url.toString()}>; rel="next"`)
  }
  return rows.slice(state.position, end).map(render)
}
