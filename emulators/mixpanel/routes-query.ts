import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { wallIso } from '../kit/zones.js'
import { checkServiceAccount, queryError } from './auth.js'
import {
  EVENT_NAMES_DAYS,
  EVENT_NAMES_DEFAULT_LIMIT,
  SEGMENTATION_DEFAULT_LIMIT,
  SEGMENTATION_MAX_LIMIT,
} from './constants.js'
import { dayRange } from './routes-export.js'
import type { MixpanelState } from './state.js'
import { compileWhere, WhereError } from './where.js'

type Query = Record<string, string | undefined>
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000

/**
 * The bucket label of an instant, in the project's time zone: Query API results are computed in the
 * project zone (mixpanel/docs@ba22906:docs/orgs-and-projects/managing-projects.mdx, "Manage Timezones
 * for Projects": the zone setting "affects the timezone in which Mixpanel outputs results").
 */
function bucketOf(ms: number, unit: string, zone: string): string {
  const iso = wallIso(ms, zone)
  switch (unit) {
    case 'hour':
      return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00:00`
    case 'week': {
      // Calendar weeks starting on Monday, as Mixpanel's weekly buckets are ("buckets for calendar weeks,
      // starting on Monday": mixpanel/docs@ba22906:docs/reports/apps/jql.mdx; the Query API says no more).
      const d = new Date(Date.parse(iso.slice(0, 10)))
      return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10)
    }
    case 'month':
      return `${iso.slice(0, 7)}-01`
    default:
      return iso.slice(0, 10)
  }
}

/** Every bucket label of the window; stepping by hours keeps days of 23 or 25 hours whole. */
function seriesOf(from: number, to: number, unit: string, zone: string): string[] {
  const out = new Set<string>()
  for (let t = from; t < to; t += HOUR_MS) out.add(bucketOf(t, unit, zone))
  return [...out]
}

/** Counts per bucket: every event (`general`) or distinct users (`unique`). */
function count(
  events: ReadonlyArray<{ time: number; user: string }>,
  unit: string,
  type: string,
  zone: string,
) {
  const buckets = new Map<string, Set<string> | number>()
  for (const e of events) {
    const b = bucketOf(e.time, unit, zone)
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
  // from_date/to_date are days of the project zone, like every Query API result.
  const range = dayRange(q, state.timezone)
  if (typeof range === 'string') return void queryError(request, reply, 400, range)
  const type = q.type ?? 'general'
  if (type !== 'general' && type !== 'unique')
    return void queryError(request, reply, 400, `type must be general or unique, got '${type}'`)
  const unit = q.unit ?? 'day'
  if (!units.includes(unit))
    return void queryError(request, reply, 400, `unit must be one of ${units.join(', ')}, got '${unit}'`)
  // "Note that you cannot get hourly uniques" (mixpanel/docs@ba22906:openapi/query.openapi.yaml, `unit`).
  if (type === 'unique' && (unit === 'hour' || unit === 'minute'))
    return void queryError(
      request,
      reply,
      400,
      `unique counts are not available by ${unit}; use day or longer`,
    )
  let where: ReturnType<typeof compileWhere>
  try {
    where = compileWhere(q.where)
  } catch (err) {
    if (err instanceof WhereError) return void queryError(request, reply, 400, err.message)
    throw err
  }
  // Queries count each (event, time, distinct_id, $insert_id) once (state.ts `queryable`).
  const inRange = state
    .queryable()
    .filter((e) => e.properties.time >= range.from && e.properties.time < range.to && where(e.properties))
  return { q, range, type, unit, inRange }
}

export function registerQueryRoutes(app: FastifyInstance, state: MixpanelState): void {
  /**
   * The service account's organizations and projects (mixpanel/docs@ba22906:reference/service-accounts.mdx
   * calls `/api/app/me`; the response is not documented there, its shape here is the one
   * providers.md 3.3 records, with the project's `timezone`).
   */
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
            timezone: state.timezone,
            domain: 'mixpanel.com',
          },
        },
      },
    }
  })

  /** Aggregate event counts: `event` a JSON array, `type`, `unit`, inclusive days (mixpanel/docs@ba22906:openapi/query.openapi.yaml /events). */
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
    const series = seriesOf(c.range.from, c.range.to, c.unit, state.timezone)
    const values: Record<string, Record<string, number>> = {}
    for (const name of names as string[]) {
      const of = count(
        c.inRange
          .filter((e) => e.event === name)
          .map((e) => ({ time: e.properties.time, user: e.properties.distinct_id })),
        c.unit,
        c.type,
        state.timezone,
      )
      values[name] = Object.fromEntries(series.map((b) => [b, of(b)]))
    }
    return { data: { series, values }, legend_size: names.length }
  })

  /**
   * Top event names: "the most common events over the last 31 days", at most `limit` (default 255), ranked
   * by `type` (required: general, unique or average) (mixpanel/docs@ba22906:openapi/query.openapi.yaml
   * /events/names). The docs call the answer "in descending alphabetical order" but their example is
   * `battle`, `click signup button`, `View homepage`: the emulator follows the example, case-insensitive
   * A to Z, so a client must not read rank from the order.
   */
  app.get('/api/query/events/names', async (request, reply) => {
    const q = request.query as Query
    if (!checkServiceAccount(state, request, reply, q.project_id ?? '')) return reply
    const type = q.type
    if (type !== 'general' && type !== 'unique' && type !== 'average')
      return queryError(request, reply, 400, `type must be general, unique or average, got '${type ?? ''}'`)
    const limit = q.limit === undefined ? EVENT_NAMES_DEFAULT_LIMIT : Number(q.limit)
    if (!Number.isInteger(limit) || limit < 1)
      return queryError(request, reply, 400, 'limit must be a positive integer')
    const since = Date.now() - EVENT_NAMES_DAYS * DAY_MS
    const counts = new Map<string, Set<string> | number>()
    for (const e of state.queryable()) {
      if (e.properties.time < since) continue
      if (type === 'unique') {
        const users = (counts.get(e.event) as Set<string> | undefined) ?? new Set<string>()
        counts.set(e.event, users.add(e.properties.distinct_id))
      } else counts.set(e.event, ((counts.get(e.event) as number | undefined) ?? 0) + 1)
    }
    const size = (v: Set<string> | number) => (typeof v === 'number' ? v : v.size)
    return [...counts]
      .sort((a, b) => size(b[1]) - size(a[1]) || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([name]) => name)
      .sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))
  })

  /** One event segmented `on` a property (mixpanel/docs@ba22906:openapi/query.openapi.yaml /segmentation; units minute, hour, day, month). */
  app.get('/api/query/segmentation', async (request, reply) => {
    const c = common(state, request, reply, ['minute', 'hour', 'day', 'month'])
    if (!c) return reply
    if (!c.q.event) return queryError(request, reply, 400, 'event is required')
    const on = c.q.on
    const onKey = on === undefined ? undefined : /^properties\["([^"]+)"\]$/.exec(on)?.[1]
    if (on !== undefined && !onKey) return queryError(request, reply, 400, `on: cannot parse '${on}'`)
    // "Return the top property values. Defaults to 60. Maximum value 10,000."
    // (mixpanel/docs@ba22906:openapi/query.openapi.yaml, /segmentation `limit`)
    let limit = SEGMENTATION_DEFAULT_LIMIT
    if (c.q.limit !== undefined) {
      limit = Number(c.q.limit)
      if (!/^\d+$/.test(c.q.limit) || limit < 1 || limit > SEGMENTATION_MAX_LIMIT) {
        return queryError(
          request,
          reply,
          400,
          `limit must be an integer between 1 and ${SEGMENTATION_MAX_LIMIT}`,
        )
      }
    }
    const events = c.inRange.filter((e) => e.event === c.q.event)
    const series = seriesOf(c.range.from, c.range.to, c.unit, state.timezone)
    // Events without the property are grouped as "undefined" (mixpanel/docs@ba22906:docs/data-structure/
    // property-reference/data-type.mdx, "Undefined values").
    const groups = new Map<string, typeof events>()
    for (const e of events) {
      const key = onKey ? String(e.properties[onKey] ?? 'undefined') : (c.q.event as string)
      const list = groups.get(key)
      if (list) list.push(e)
      else groups.set(key, [e])
    }
    const top = onKey ? [...groups].sort((a, b) => b[1].length - a[1].length).slice(0, limit) : [...groups]
    const values: Record<string, Record<string, number>> = {}
    for (const [key, list] of top) {
      const of = count(
        list.map((e) => ({ time: e.properties.time, user: e.properties.distinct_id })),
        c.unit,
        c.type,
        state.timezone,
      )
      values[key] = Object.fromEntries(series.map((b) => [b, of(b)]))
    }
    return { data: { series, values }, legend_size: top.length }
  })

  /**
   * Profiles: `page` 0 opens a result set (`session_id`); "If page is set and above 0, the session_id
   * parameter must also be provided" (mixpanel/docs@ba22906:openapi/query.openapi.yaml /engage). Pending profile writes due by
   * now are applied first (state.ts `settleProfiles`).
   */
  app.post('/api/query/engage', async (request, reply) => {
    const q = request.query as Query
    if (!checkServiceAccount(state, request, reply, q.project_id ?? '')) return reply
    state.settleProfiles()
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
