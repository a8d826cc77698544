import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { checkServiceAccount, queryError } from './auth.js'
import { dayRange } from './routes-export.js'
import type { MixpanelState } from './state.js'
import { compileWhere, WhereError } from './where.js'

type Query = Record<string, string | undefined>
const DAY_MS = 86_400_000

function bucketOf(ms: number, unit: string): string {
  const iso = new Date(ms).toISOString()
  switch (unit) {
    case 'hour':
      return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00`
    case 'week': {
      const d = new Date(Date.parse(iso.slice(0, 10)))
      return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10)
    }
    case 'month':
      return `${iso.slice(0, 7)}-01`
    default:
      return iso.slice(0, 10)
  }
}

function seriesOf(from: number, to: number, unit: string): string[] {
  const out = new Set<string>()
  const step = unit === 'hour' ? 3_600_000 : DAY_MS
  for (let t = from; t < to; t += step) out.add(bucketOf(t, unit))
  return [...out]
}

/** Counts per bucket: every event (`general`) or distinct users (`unique`). */
function count(events: ReadonlyArray<{ time: number; user: string }>, unit: string, type: string) {
  const buckets = new Map<string, Set<string> | number>()
  for (const e of events) {
    const b = bucketOf(e.time, unit)
    if (type === 'unique') {
      const s = (buckets.get(b) as Set<string> | undefined) ?? new Set<string>()
      s.add(e.user)
      buckets.set(b, s)
    } else buckets.set(b, ((buckets.get(b) as number | undefined) ?? 0) + 1)
  }
  return (b: string) => {
    const v = buckets.get(b)
    return v === undefined ? 0 : typeof v === 'number' ? v : v.size
  }
}

function common(
  state: MixpanelState,
  request: FastifyRequest,
  reply: FastifyReply,
  units: readonly string[],
) {
  const q = request.query as Query
  if (!checkServiceAccount(state, request, reply, q.project_id ?? '')) return undefined
  const range = dayRange(q)
  if (typeof range === 'string') return void queryError(request, reply, 400, range)
  const type = q.type ?? 'general'
  if (type !== 'general' && type !== 'unique')
    return void queryError(request, reply, 400, `type must be general or unique, got '${type}'`)
  const unit = q.unit ?? 'day'
  if (!units.includes(unit))
    return void queryError(request, reply, 400, `unit must be one of ${units.join(', ')}, got '${unit}'`)
  let where: ReturnType<typeof compileWhere>
  try {
    where = compileWhere(q.where)
  } catch (err) {
    if (err instanceof WhereError) return void queryError(request, reply, 400, err.message)
    throw err
  }
  const inRange = state.events.filter(
    (e) => e.properties.time >= range.from && e.properties.time < range.to && where(e.properties),
  )
  return { q, range, type, unit, inRange }
}

export function registerQueryRoutes(app: FastifyInstance, state: MixpanelState): void {
  app.get('/api/app/me', async (request, reply) => {
    if (!checkServiceAccount(state, request, reply, undefined)) return reply
    return {
      status: 'ok',
      results: {
        user_id: 1,
        user_name: state.serviceAccount.username,
        user_email: `${state.serviceAccount.username}@serviceaccount.mixpanel.com`,
        organizations: { '11': { id: 11, name: 'Acme' } },
        projects: {
          [state.projectId]: {
            name: 'Acme Web',
            organization_id: 11,
            timezone: 'UTC',
            domain: 'mixpanel.com',
          },
        },
      },
    }
  })

  app.get('/api/query/events', async (request, reply) => {
    const c = common(state, request, reply, ['minute', 'hour', 'day', 'week', 'month'])
    if (!c) return reply
    let names: unknown
    try {
      names = JSON.parse(c.q.event ?? '')
    } catch {
      names = undefined
    }
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) {
      return queryError(request, reply, 400, 'event must be a JSON array of one or more event names')
    }
    const series = seriesOf(c.range.from, c.range.to, c.unit)
    const values: Record<string, Record<string, number>> = {}
    for (const name of names as string[]) {
      const of = count(
        c.inRange
          .filter((e) => e.event === name)
          .map((e) => ({ time: e.properties.time, user: e.properties.distinct_id })),
        c.unit,
        c.type,
      )
      values[name] = Object.fromEntries(series.map((b) => [b, of(b)]))
    }
    return { data: { series, values }, legend_size: names.length }
  })

  app.get('/api/query/segmentation', async (request, reply) => {
    const c = common(state, request, reply, ['minute', 'hour', 'day', 'month'])
    if (!c) return reply
    if (!c.q.event) return queryError(request, reply, 400, 'event is required')
    const on = c.q.on
    const onKey = on === undefined ? undefined : /^properties\["([^"]+)"\]$/.exec(on)?.[1]
    if (on !== undefined && !onKey) return queryError(request, reply, 400, `on: cannot parse '${on}'`)
    const events = c.inRange.filter((e) => e.event === c.q.event)
    const series = seriesOf(c.range.from, c.range.to, c.unit)
    const groups = new Map<string, typeof events>()
    for (const e of events) {
      const key = onKey ? String(e.properties[onKey] ?? 'undefined') : (c.q.event as string)
      const list = groups.get(key)
      if (list) list.push(e)
      else groups.set(key, [e])
    }
    const values: Record<string, Record<string, number>> = {}
    for (const [key, list] of groups) {
      const of = count(
        list.map((e) => ({ time: e.properties.time, user: e.properties.distinct_id })),
        c.unit,
        c.type,
      )
      values[key] = Object.fromEntries(series.map((b) => [b, of(b)]))
    }
    return { data: { series, values }, legend_size: groups.size }
  })

  /** Profiles: `page` 0 opens a result set (`session_id`); later pages must name it. */
  app.post('/api/query/engage', async (request, reply) => {
    const q = request.query as Query
    if (!checkServiceAccount(state, request, reply, q.project_id ?? '')) return reply
    const form = (request.body ?? {}) as Record<string, string>
    let where: ReturnType<typeof compileWhere>
    try {
      where = compileWhere(form.where)
    } catch (err) {
      if (err instanceof WhereError) return queryError(request, reply, 400, err.message)
      throw err
    }
    const page = form.page === undefined ? 0 : Number(form.page)
    if (!Number.isInteger(page) || page < 0)
      return queryError(request, reply, 400, 'page must be a non-negative integer')
    const identity = JSON.stringify([form.where ?? '', form.distinct_id ?? ''])
    let session = form.session_id
    if (page > 0) {
      if (!session)
        return queryError(request, reply, 400, 'session_id is required to request a page after the first')
      if (state.engageSessions.get(session) !== identity) {
        return queryError(
          request,
          reply,
          400,
          'session_id is invalid or expired, or belongs to another query',
        )
      }
    } else session = state.newEngageSession(identity)
    const all = [...state.profiles.values()]
      .filter((p) => form.distinct_id === undefined || p.$distinct_id === form.distinct_id)
      .filter((p) => where(p.$properties))
      .sort((a, b) => a.$distinct_id.localeCompare(b.$distinct_id))
    const size = state.engagePageSize
    return {
      page,
      page_size: size,
      session_id: session,
      status: 'ok',
      total: all.length,
      results: all.slice(page * size, (page + 1) * size),
    }
  })
}
