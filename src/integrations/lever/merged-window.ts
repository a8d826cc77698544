import type { HandlerContext, ListQuery } from '../types.js'
import type { LeverList, LeverOpportunity } from './types.js'

/** Lever's largest page ("limit ... between 1 and 100", https://hire.lever.co/developer/documentation#pagination). */
export const MAX_PAGE = 100

/**
 * Where one Lever list stands: the offset token that starts the page being read (none: the first page), how
 * many of that page's rows were already taken, and whether the list has ended. Lever's tokens only come at
 * page ends, so a position inside a page is its start token plus a count: resuming there re-reads that page.
 */
interface StreamState {
  readonly token?: string
  readonly skip: number
  readonly done?: true
}

/** What a remembered position holds: every stream's state, and the ids taken at the last creation time (dedupe). */
interface MergedCursor {
  readonly streams: readonly StreamState[]
  readonly frontier: { readonly at: number | null; readonly ids: readonly string[] }
}

/** One Lever opportunity list read row by row, a page at a time. */
class LeverStream {
  private rows: readonly LeverOpportunity[] = []
  private index = 0
  private loaded = false
  private pageToken: string | undefined
  private nextToken: string | undefined
  private ended: boolean
  private readonly skipOnLoad: number

  constructor(
    private readonly ctx: HandlerContext,
    private readonly path: string,
    state: StreamState,
  ) {
    this.pageToken = state.token
    this.skipOnLoad = state.skip
    this.ended = state.done === true
  }

  /** The next row, reading a page of up to `want` more rows (plus those to skip) when the current one is used up. */
  async head(want: number): Promise<LeverOpportunity | undefined> {
    while (this.index >= this.rows.length) {
      if (this.ended) return undefined
      if (this.loaded) {
        if (this.nextToken === undefined) {
          this.ended = true
          return undefined
        }
        this.pageToken = this.nextToken
      }
      const skip = this.loaded ? 0 : this.skipOnLoad
      const page = await this.ctx.client.json<LeverList<LeverOpportunity>>({
        path: this.path,
        // The caller's raw parameters are in the path already (opportunities.ts withRawParams).
        query: {
          limit: Math.min(MAX_PAGE, skip + Math.max(1, want)),
          offset: this.pageToken,
        },
      })
      this.loaded = true
      this.rows = page.data
      this.index = skip
      this.nextToken = page.hasNext && page.next && page.data.length > 0 ? page.next : undefined
    }
    return this.rows[this.index]
  }

  take(): void {
    this.index++
  }

  state(): StreamState {
    if (!this.loaded) {
      return {
        ...(this.pageToken ? { token: this.pageToken } : {}),
        skip: this.skipOnLoad,
        ...(this.ended ? { done: true } : {}),
      }
    }
    if (this.index >= this.rows.length) {
      return this.nextToken ? { token: this.nextToken, skip: 0 } : { skip: 0, done: true }
    }
    return { ...(this.pageToken ? { token: this.pageToken } : {}), skip: this.index }
  }
}

/**
 * Lever's list order: newest created first; its offset tokens carry `[1, createdAt, id]`
 * (amp-labs/connectors@10f046f:providers/lever/test/opportunities.json), so ties are broken by id.
 */
function comesFirst(a: LeverOpportunity, b: LeverOpportunity): boolean {
  const at = a.createdAt ?? 0
  const bt = b.createdAt ?? 0
  return at !== bt ? at > bt : a.id > b.id
}

function parseCursor(text: string | undefined, streams: number): MergedCursor | undefined {
  if (text === undefined) return undefined
  try {
    const parsed = JSON.parse(text) as MergedCursor
    return parsed.streams.length === streams ? parsed : undefined
  } catch {
    return undefined
  }
}

/**
 * The unified window of one or more Lever lists merged in Lever's order, each opportunity once. Each list
 * is read a page at a time; the merged position is remembered (scoped to the connection and the query) every
 * MAX_PAGE rows and at the window's end, as every list's token and the rows taken from its page, so reading
 * the next window costs one call per list (plus re-reading the part of a page already taken, when the merge
 * stopped inside one).
 */
export async function readMergedWindow(
  ctx: HandlerContext,
  paths: readonly string[],
  q: ListQuery,
): Promise<LeverOpportunity[]> {
  const scope = `${ctx.connectionId}|lever-opportunities|${paths.join('|')}|${new URLSearchParams(ctx.rawParams)}`
  const start = await ctx.cursors.walkStart(scope, q.offset)
  const saved = parseCursor(start.cursor, paths.length)
  // A remembered cursor of another shape (none are expected) is ignored: walk from the beginning.
  let position = saved ? start.offset : 0
  const streams = paths.map((p, i) => new LeverStream(ctx, p, saved?.streams[i] ?? { skip: 0 }))
  // The ids taken at the current creation time, as a set: rows without a creation time all share one, and
  // copying a list per row made a walk of 10,000 such rows quadratic.
  let frontierAt = saved?.frontier.at ?? null
  const frontierIds = new Set(saved?.frontier.ids ?? [])
  const end = q.offset + q.limit
  const rows: LeverOpportunity[] = []
  while (position < end) {
    // Before the window, pages end where it starts, so the position there is a clean token.
    const want =
      position < q.offset ? Math.min(MAX_PAGE, q.offset - position) : Math.min(MAX_PAGE, end - position)
    const heads = await Promise.all(streams.map((s) => s.head(want)))
    let first: LeverOpportunity | undefined
    for (const h of heads) if (h && (!first || comesFirst(h, first))) first = h
    if (!first) break
    const chosen = first
    heads.forEach((h, i) => {
      if (h?.id === chosen.id) streams[i]?.take()
    })
    const at = chosen.createdAt ?? null
    // The same opportunity in two lists is at the same creation time in both: seen at this time, it is skipped.
    if (at === frontierAt && frontierIds.has(chosen.id)) continue
    if (at !== frontierAt) {
      frontierAt = at
      frontierIds.clear()
    }
    frontierIds.add(chosen.id)
    if (position >= q.offset) rows.push(chosen)
    position++
    if (position % MAX_PAGE === 0 || position === end || position === q.offset) {
      const cursor: MergedCursor = {
        streams: streams.map((s) => s.state()),
        frontier: { at: frontierAt, ids: [...frontierIds] },
      }
      ctx.cursors.set(scope, position, JSON.stringify(cursor))
    }
  }
  return rows
}
