import { ApiError, notFound } from '../../errors.js'
import type { HandlerContext } from '../types.js'
import type { UmamiActivity, UmamiSession } from './types.js'

/** Umami answers at most this many activity rows per call, newest first. */
export const ACTIVITY_PAGE = 500

/** Most activity calls for one session before giving up rather than answering part of it. */
const MAX_ACTIVITY_CALLS = 20

const sessionPath = (website: string, session: string) =>
  `/websites/${encodeURIComponent(website)}/sessions/${encodeURIComponent(session)}`

/**
 * A session's detail, the only read carrying its `distinctId`. Umami answers 200 with `{}` for a session
 * the website does not have (umami-software/umami@v3.1.0:src/queries/sql/sessions/getWebsiteSession.ts).
 */
export async function readSession(
  ctx: HandlerContext,
  website: string,
  session: string,
): Promise<UmamiSession> {
  const s = await ctx.client.json<Partial<UmamiSession> | null>({
    path: sessionPath(website, session),
    query: { ...ctx.rawParams },
  })
  if (!s || typeof s.id !== 'string') throw notFound(`session ${website}:${session} not found`)
  return s as UmamiSession
}

/**
 * All of a session's activity in a range. Umami cuts each answer at 500 rows, newest first
 * (getSessionActivity.ts `limit 500`), so a full answer is followed by one ending at its oldest row's
 * time, rows already seen dropped.
 */
export async function readActivity(
  ctx: HandlerContext,
  website: string,
  session: string,
  range: { startAt: number; endAt: number },
): Promise<UmamiActivity[]> {
  const seen = new Set<string>()
  const out: UmamiActivity[] = []
  let endAt = range.endAt
  for (let call = 0; call < MAX_ACTIVITY_CALLS; call++) {
    const rows = await ctx.client.json<UmamiActivity[]>({
      path: `${sessionPath(website, session)}/activity`,
      query: { startAt: range.startAt, endAt, ...ctx.rawParams },
    })
    const fresh = rows.filter((r) => !seen.has(r.eventId))
    for (const r of fresh) {
      seen.add(r.eventId)
      out.push(r)
    }
    if (rows.length < ACTIVITY_PAGE) return out
    const oldest = Math.min(...rows.map((r) => Date.parse(r.createdAt)))
    if (fresh.length === 0 || !Number.isFinite(oldest)) break
    endAt = oldest
  }
  throw new ApiError(
    502,
    `Umami session ${session} has more activity than ${MAX_ACTIVITY_CALLS} reads of ${ACTIVITY_PAGE} rows`,
  )
}
