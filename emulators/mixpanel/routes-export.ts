import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { dayStart, nextDay, wallClockMs } from '../kit/zones.js'
import { checkServiceAccount, queryError } from './auth.js'
import { EXPORT_MAX_LIMIT } from './constants.js'
import type { MixpanelState } from './state.js'
import { compileWhere, WhereError } from './where.js'

type Query = Record<string, string | undefined>
const DAY = /^\d{4}-\d{2}-\d{2}$/

/**
 * Validates `from_date`/`to_date` (inclusive days of `zone`) and answers their bounds as instants in ms.
 * Both are required and `yyyy-mm-dd` (mixpanel/docs@ba22906:openapi/export.openapi.yaml and
 * openapi/query.openapi.yaml).
 */
export function dayRange(q: Query, zone: string): { from: number; to: number } | string {
  const { from_date: from, to_date: to } = q
  if (!from || !to) return 'from_date and to_date are required'
  if (!DAY.test(from) || Number.isNaN(Date.parse(`${from}T00:00:00Z`)))
    return `from_date '${from}' is not YYYY-MM-DD`
  if (!DAY.test(to) || Number.isNaN(Date.parse(`${to}T00:00:00Z`))) return `to_date '${to}' is not YYYY-MM-DD`
  if (to < from) return 'to_date must not be before from_date'
  return { from: dayStart(from, zone), to: dayStart(nextDay(to), zone) }
}

/**
 * The zone a project's export reads dates in and writes `time` in: UTC, or the project's zone for projects
 * created before 2023-01-01 ("For projects created before 1 January 2023, the from_date and to_date params
 * are interpreted using your current project timezone" and "your event timestamp is stored in your local
 * project timezone": mixpanel/docs@ba22906:docs/export-methods.mdx).
 */
export const exportZone = (state: MixpanelState) => (state.legacyLocalTime ? state.timezone : 'UTC')

/**
 * Raw Event Export: JSON lines, no paging, `limit` at most 100 000
 * (mixpanel/docs@ba22906:openapi/export.openapi.yaml); lines in ingestion order (see state.ts).
 */
export function registerExportRoutes(app: FastifyInstance, state: MixpanelState): void {
  app.get('/api/2.0/export', async (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as Query
    if (!checkServiceAccount(state, request, reply, q.project_id ?? '')) return reply
    const zone = exportZone(state)
    const range = dayRange(q, zone)
    if (typeof range === 'string') return queryError(request, reply, 400, range)
    let limit = EXPORT_MAX_LIMIT
    if (q.limit !== undefined) {
      if (!/^\d+$/.test(q.limit) || Number(q.limit) < 1 || Number(q.limit) > EXPORT_MAX_LIMIT) {
        return queryError(request, reply, 400, `limit must be an integer between 1 and ${EXPORT_MAX_LIMIT}`)
      }
      limit = Number(q.limit)
    }
    let names: string[] | undefined
    if (q.event !== undefined) {
      try {
        const parsed = JSON.parse(q.event) as unknown
        if (!Array.isArray(parsed) || !parsed.every((n) => typeof n === 'string')) throw new Error()
        names = parsed
      } catch {
        return queryError(request, reply, 400, 'event must be a JSON array of event names')
      }
    }
    let where: ReturnType<typeof compileWhere>
    try {
      where = compileWhere(q.where)
    } catch (err) {
      if (err instanceof WhereError) return queryError(request, reply, 400, err.message)
      throw err
    }
    const ms = q.time_in_ms === 'true'
    const lines: string[] = []
    for (const e of state.events) {
      if (lines.length >= limit) break
      const t = e.properties.time
      if (t < range.from || t >= range.to) continue
      if (names && !names.includes(e.event)) continue
      if (!where(e.properties)) continue
      const stored = zone === 'UTC' ? t : wallClockMs(t, zone)
      const properties = { ...e.properties, time: ms ? stored : Math.floor(stored / 1000) }
      lines.push(JSON.stringify({ event: e.event, properties }))
    }
    return reply.type('text/plain; charset=utf-8').send(lines.length ? `${lines.join('\n')}\n` : '')
  })
}
