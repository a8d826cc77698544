import { badRequest, notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { pageWindow, readWindow } from '../page-window.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { fromUmamiSession, fromUnifiedSessionId, sessionFieldsFromUmamiActivity } from './mappers.js'
import { umamiRange } from './time-range.js'
import type { UmamiActivity, UmamiPage, UmamiSession } from './types.js'

/** Landing/exit page and entry campaign come from the session's activity: one call per session. */
export const SESSION_SLOW_FIELDS = ['landing_page', 'exit_page', 'source', 'medium', 'campaign'] as const

const sessionPath = (website: string, session: string) =>
  `/websites/${encodeURIComponent(website)}/sessions/${encodeURIComponent(session)}`

async function withActivity(ctx: HandlerContext, s: UmamiSession, record: UnifiedRecord) {
  if (!SESSION_SLOW_FIELDS.some((f) => ctx.fields.slow.has(f))) return record
  const activity = await ctx.client.json<UmamiActivity[]>({
    path: `${sessionPath(s.websiteId, s.id)}/activity`,
    query: { startAt: Date.parse(s.firstAt), endAt: Date.parse(s.lastAt) },
  })
  return { ...record, ...sessionFieldsFromUmamiActivity(activity) }
}

export const sessionHandlers: ObjectHandlers = {
  listParams: ['query'],
  filters: ['property_id', 'visitor_id', 'start_gte', 'end_lt'],
  slowFields: [...SESSION_SLOW_FIELDS],

  async list(ctx, q) {
    const website = q.filters.property_id
    if (typeof website !== 'string') {
      throw badRequest('Umami lists sessions per website: give property_id')
    }
    const range = umamiRange(q, undefined)
    const rows = await readWindow(pageWindow(q.offset, q.limit), q.limit, async (page, pageSize) => {
      const res = await ctx.client.json<UmamiPage<UmamiSession>>({
        path: `/websites/${encodeURIComponent(website)}/sessions`,
        query: {
          startAt: range.startAt,
          endAt: range.endAt,
          page,
          pageSize,
          search: q.query,
          distinctId: typeof q.filters.visitor_id === 'string' ? q.filters.visitor_id : undefined,
          ...ctx.rawParams,
        },
      })
      return res.data
    })
    return Promise.all(rows.map((s) => withActivity(ctx, s, fromUmamiSession(s))))
  },

  async get(ctx, id) {
    const ids = fromUnifiedSessionId(id)
    if (!ids) throw notFound(`session ${id} not found: Umami session ids here read <website id>:<session id>`)
    const s = await ctx.client.json<UmamiSession>({
      path: sessionPath(ids.websiteId, ids.sessionId),
      query: { ...ctx.rawParams },
    })
    return withActivity(ctx, s, fromUmamiSession(s))
  },
}
