import pMap from 'p-map'
import { badRequest, notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { pageWindow, readWindow } from '../page-window.js'
import { RECORD_READS_AT_ONCE } from '../record-reads.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { fromUmamiSession, fromUnifiedSessionId, sessionFieldsFromUmamiActivity } from './mappers.js'
import { readActivity, readSession } from './session-reads.js'
import { umamiRange } from './time-range.js'
import type { UmamiPage, UmamiSession } from './types.js'
import { onWebsite } from './website-access.js'

/** Landing/exit page and entry campaign come from the session's activity: one call per session. */
const ACTIVITY_FIELDS = ['landing_page', 'exit_page', 'source', 'medium', 'campaign'] as const

/**
 * Session list rows have no distinctId; only the session detail does, one call per session
 * (umami-software/umami@v3.1.0:src/queries/sql/sessions/getWebsiteSessions.ts, getWebsiteSession.ts).
 */
export const SESSION_SLOW_FIELDS = [...ACTIVITY_FIELDS, 'visitor_id'] as const

async function withActivity(ctx: HandlerContext, s: UmamiSession, record: UnifiedRecord) {
  if (!ACTIVITY_FIELDS.some((f) => ctx.fields.slow.has(f))) return record
  const activity = await readActivity(ctx, s.websiteId, s.id, {
    startAt: Date.parse(s.firstAt),
    endAt: Date.parse(s.lastAt),
  })
  return { ...record, ...sessionFieldsFromUmamiActivity(activity) }
}

async function withVisitor(ctx: HandlerContext, s: UmamiSession, record: UnifiedRecord, known?: string) {
  if (known !== undefined) return { ...record, visitor_id: known }
  if (!ctx.fields.slow.has('visitor_id')) return record
  const detail = await readSession(ctx, s.websiteId, s.id)
  return { ...record, visitor_id: fromUmamiSession(detail).visitor_id }
}

/** The website a session list is of: Umami lists sessions per website only. */
function websiteAsked(q: ListQuery): string {
  const website = q.filters.property_id
  if (typeof website !== 'string') throw badRequest('Umami lists sessions per website: give property_id')
  return website
}

export const sessionHandlers: ObjectHandlers = {
  listParams: ['query'],
  filters: ['property_id', 'visitor_id', 'start_gte', 'end_lt'],
  slowFields: [...SESSION_SLOW_FIELDS],
  // Umami reads these as the unified filters: a raw one would silently replace the caller's.
  rawOwned: { search: 'use query', distinctId: 'use visitor_id' },

  checkList: (q) => void websiteAsked(q),

  async list(ctx, q) {
    const website = websiteAsked(q)
    const range = umamiRange(q, undefined)
    const visitor = typeof q.filters.visitor_id === 'string' ? q.filters.visitor_id : undefined
    const rows = await onWebsite(ctx, website, () =>
      readWindow(pageWindow(q.offset, q.limit), q.limit, async (page, pageSize) => {
        const res = await ctx.client.json<UmamiPage<UmamiSession>>({
          path: `/websites/${encodeURIComponent(website)}/sessions`,
          query: {
            startAt: range.startAt,
            endAt: range.endAt,
            page,
            pageSize,
            search: q.query,
            distinctId: visitor,
            ...ctx.rawParams,
          },
        })
        return res.data
      }),
    )
    return pMap(
      rows,
      async (s) => withVisitor(ctx, s, await withActivity(ctx, s, fromUmamiSession(s)), visitor),
      { concurrency: RECORD_READS_AT_ONCE },
    )
  },

  async get(ctx, id) {
    const ids = fromUnifiedSessionId(id)
    if (!ids) throw notFound(`session ${id} not found: Umami session ids here read <website id>:<session id>`)
    const s = await onWebsite(ctx, ids.websiteId, () => readSession(ctx, ids.websiteId, ids.sessionId))
    return withActivity(ctx, s, fromUmamiSession(s))
  },
}
