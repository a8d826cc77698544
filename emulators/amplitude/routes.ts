import { gzipSync } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { instantOfWall, utc } from '../kit/zones.js'
import {
  cutStrings,
  EXPORT_AVAILABLE_AFTER_MS,
  EXPORT_MAX_HOURS,
  SEGMENTATION_DAILY_MAX_DAYS,
  SEGMENTATION_DEFAULT_LIMIT,
  SEGMENTATION_HOURLY_MAX_DAYS,
  SEGMENTATION_MAX_LIMIT,
} from './constants.js'
import { type AmplitudeEventRecord, type AmplitudeState, type AmplitudeUser, amplitudeTime } from './state.js'
import { writeZip } from './zip-writer.js'

export interface Keys {
  readonly apiKey: string
  readonly secretKey: string
}

export interface ExportLimits {
  /** The largest archive the export answers (Amplitude: 4 GB). */
  readonly maxBytes: number
}

type Query = Record<string, string | undefined>
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** Dashboard REST, Export and User APIs: Basic `api_key:secret_key` (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md and export.md, "Authentication"). */
function basicOk(request: FastifyRequest, reply: FastifyReply, keys: Keys): boolean {
  const m = /^Basic\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))
  const pair = m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : ''
  if (pair !== `${keys.apiKey}:${keys.secretKey}`) {
    void reply.code(401).type('text/plain').send('Invalid API key or secret key')
    return false
  }
  return true
}

const bad = (reply: FastifyReply, error: string) => reply.code(400).send({ error })

/** `20240501T10` → ms of that hour (UTC), or undefined. */
function hourOf(v: string | undefined): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})$/.exec(v ?? '')
  if (!m) return undefined
  const ms = utc(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]))
  return Number.isNaN(ms) ? undefined : ms
}

function dayOf(v: string | undefined): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(v ?? '')
  return m ? utc(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined
}

/**
 * Export: a zip of gzipped JSON-lines files per upload hour (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/export.md: "The response is a zipped
 * archive of JSON files", dates "refer to the time the event data was uploaded", 404 when there is no data).
 */
export function registerExportRoute(
  app: FastifyInstance,
  state: AmplitudeState,
  keys: Keys,
  limits: ExportLimits,
): void {
  app.get('/api/2/export', async (request, reply) => {
    if (!basicOk(request, reply, keys)) return reply
    const q = request.query as Query
    const start = hourOf(q.start)
    const end = hourOf(q.end)
    if (start === undefined || end === undefined) return bad(reply, 'start and end must be YYYYMMDDTHH')
    if (end < start) return bad(reply, 'end must not be before start')
    // "The max period you can query at once is 365 days" (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/export.md).
    if ((end - start) / HOUR_MS + 1 > EXPORT_MAX_HOURS)
      return bad(reply, 'The date range cannot exceed 365 days')
    const now = Date.now()
    const hours = new Map<number, AmplitudeEventRecord[]>()
    for (const e of state.events) {
      const hour = Math.floor(e.uploadTimeMs / HOUR_MS) * HOUR_MS
      if (hour < start || hour > end) continue
      // "data sent between 8 and 9 PM begins loading at 9 PM and is available via the Export API at 11 PM"
      if (hour + EXPORT_AVAILABLE_AFTER_MS > now) continue
      const list = hours.get(hour)
      if (list) list.push(e)
      else hours.set(hour, [e])
    }
    if (hours.size === 0) return reply.code(404).type('text/plain').send('Raw data files were not found.')
    const entries = [...hours.entries()]
      .sort(([a], [b]) => a - b)
      .map(([hour, events]) => {
        const iso = new Date(hour).toISOString()
        const lines = events.map((e) => JSON.stringify(state.render(e))).join('\n')
        return {
          name: `${state.app}/${state.app}_${iso.slice(0, 10)}_${Number(iso.slice(11, 13))}#0.json.gz`,
          data: gzipSync(`${lines}\n`),
        }
      })
    const zip = writeZip(entries)
    // "Size limit is 4GB. If the size exceeds 4GB, the request returns a 400 response." (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/export.md)
    if (zip.length > limits.maxBytes) {
      return reply
        .code(400)
        .type('text/plain')
        .send(
          'The file size of the exported data is too large. Shorten the time ranges and try again. The limit size is 4GB.',
        )
    }
    return reply.type('application/zip').send(zip)
  })
}

export function registerIngestRoutes(app: FastifyInstance, state: AmplitudeState, keys: Keys): void {
  /**
   * HTTP V2 (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md): `api_key` and `events` required; `user_id` or `device_id` of at least 5
   * characters unless `options.min_id_length`; under 2000 events and 1 MB (413 beyond); errors name
   * `missing_field`, `events_with_missing_fields` or `events_with_invalid_fields`.
   */
  app.post('/2/httpapi', async (request, reply) => {
    const body = (request.body ?? {}) as {
      api_key?: unknown
      events?: unknown
      options?: { min_id_length?: unknown }
    }
    if (typeof body.api_key !== 'string' || body.api_key === '') {
      return reply
        .code(400)
        .send({ code: 400, error: 'Request missing required field', missing_field: 'api_key' })
    }
    if (body.api_key !== keys.apiKey)
      return reply.code(400).send({ code: 400, error: `Invalid API key: ${body.api_key}` })
    if (!Array.isArray(body.events) || body.events.length === 0) {
      return reply
        .code(400)
        .send({ code: 400, error: 'Request missing required field', missing_field: 'events' })
    }
    if (body.events.length > 2000) return reply.code(413).send({ code: 413, error: 'Payload too large' })
    const minLength = typeof body.options?.min_id_length === 'number' ? body.options.min_id_length : 5
    const missing: Record<string, number[]> = {}
    const invalid: Record<string, number[]> = {}
    const note = (into: Record<string, number[]>, field: string, i: number) => {
      into[field] = [...(into[field] ?? []), i]
    }
    body.events.forEach((raw, i) => {
      const e = (raw ?? {}) as Record<string, unknown>
      if (typeof e.event_type !== 'string' || e.event_type === '') note(missing, 'event_type', i)
      const ids = [e.user_id, e.device_id].filter((v) => typeof v === 'string' && v !== '') as string[]
      if (ids.length === 0) note(missing, 'user_id', i)
      else if (ids.some((v) => v.length < minLength)) note(invalid, 'user_id', i)
      if (e.time !== undefined && typeof e.time !== 'number') note(invalid, 'time', i)
      if (e.insert_id !== undefined && typeof e.insert_id !== 'string') note(invalid, 'insert_id', i)
    })
    if (Object.keys(missing).length > 0) {
      return reply
        .code(400)
        .send({ code: 400, error: 'Request missing required field', events_with_missing_fields: missing })
    }
    if (Object.keys(invalid).length > 0) {
      return reply.code(400).send({
        code: 400,
        error: 'Invalid field values on some events',
        events_with_invalid_fields: invalid,
      })
    }
    const now = Date.now()
    // A repeated insert_id within 7 days is accepted and silently dropped (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md, "Event deduplication").
    // Strings over 1024 characters are stored cut (STRING_MAX_CHARS), and the answer does not say so.
    for (const e of body.events as Record<string, unknown>[]) state.ingest(cutStrings(e), now)
    return {
      code: 200,
      events_ingested: body.events.length,
      payload_size_bytes: JSON.stringify(body).length,
      server_upload_time: now,
    }
  })

  /** Identify: a form with `api_key` and a JSON list of `identification`s; answers `success` (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/identify.md). */
  app.post('/identify', async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string>
    if (form.api_key !== keys.apiKey) return reply.code(400).type('text/plain').send('invalid_api_key')
    let list: unknown
    try {
      list = JSON.parse(form.identification ?? '')
    } catch {
      return reply.code(400).type('text/plain').send('missing_event')
    }
    if (!Array.isArray(list) || list.length === 0)
      return reply.code(400).type('text/plain').send('missing_event')
    for (const raw of list) {
      const id = raw as {
        user_id?: string
        device_id?: string
        user_properties?: { $set?: Record<string, unknown> }
      }
      if (!id.user_id && !id.device_id)
        return reply.code(400).type('text/plain').send('missing_user_id_or_device_id')
      const user = state.userFor(id.user_id, id.device_id)
      Object.assign(user.properties, cutStrings(id.user_properties?.$set ?? {}))
    }
    return reply.type('text/plain').send('success')
  })
}

export function registerUserRoutes(app: FastifyInstance, state: AmplitudeState, keys: Keys): void {
  /** User Search: "a specified Amplitude ID, device ID, user ID, or user ID prefix" (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, User Search). */
  app.get('/api/2/usersearch', async (request, reply) => {
    if (!basicOk(request, reply, keys)) return reply
    const user = (request.query as Query).user
    if (!user) return bad(reply, 'user is required')
    const live = [...state.users.values()].filter((u) => !u.deleted)
    let matches = live.filter(
      (u) => u.user_id === user || u.device_id === user || String(u.amplitude_id) === user,
    )
    let type = 'match_user_or_device_id'
    if (matches.length === 0) {
      matches = live.filter((u) => u.user_id?.startsWith(user))
      type = matches.length ? 'match_user_prefix' : 'nomatch'
    }
    return { matches: matches.map((u) => ({ user_id: u.user_id, amplitude_id: u.amplitude_id })), type }
  })

  /** User Activity: `user` is an Amplitude ID, `limit` up to 1000; `userData` lists `device_ids` (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, User Activity). */
  app.get('/api/2/useractivity', async (request, reply) => {
    if (!basicOk(request, reply, keys)) return reply
    const q = request.query as Query
    if (!q.user || !/^\d+$/.test(q.user)) return bad(reply, 'user must be an Amplitude ID')
    const limit = q.limit === undefined ? 1000 : Number(q.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      return bad(reply, 'limit must be between 1 and 1000')
    const u = state.users.get(Number(q.user))
    if (!u || u.deleted) return reply.code(404).send({ error: 'User not found' })
    const events = state.events
      .filter((e) => e.amplitude_id === u.amplitude_id)
      .sort((a, b) => b.eventTimeMs - a.eventTimeMs)
    const first = events[events.length - 1]
    const last = events[0]
    return {
      userData: {
        user_id: u.user_id,
        canonical_amplitude_id: u.amplitude_id,
        merged_amplitude_ids: [],
        num_events: events.length,
        num_sessions: new Set(events.map((e) => e.session_id)).size,
        usage_time: 0,
        first_used: first ? amplitudeTime(first.eventTimeMs).slice(0, 10) : null,
        last_used: last ? amplitudeTime(last.eventTimeMs).slice(0, 10) : null,
        purchases: events.filter((e) => typeof e.event_properties.$revenue === 'number').length,
        revenue: events.reduce((a, e) => a + (Number(e.event_properties.$revenue) || 0), 0),
        platform: last?.platform ?? null,
        os: last?.os_name ?? null,
        device: last?.device_type ?? null,
        country: last?.country ?? null,
        region: last?.region ?? null,
        city: last?.city ?? null,
        language: last?.language ?? null,
        device_ids: [u.device_id],
        properties: u.properties,
      },
      events: events.slice(Number(q.offset ?? 0), Number(q.offset ?? 0) + limit).map((e) => state.render(e)),
    }
  })

  /**
   * User Privacy API (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/user-privacy.md): up to 100 `amplitude_ids` or `user_ids` per request.
   * `ignore_invalid_id` is a Boolean, default false: then one unknown user fails the whole request with a
   * 400 and nothing is marked; with true, the known users are marked and the unknown listed in
   * `invalid_ids`. The docs' own examples also write it as the JSON string "true", accepted likewise.
   * The answer's fields (`day`, `status`, `amplitude_ids` of `{ amplitude_id, requester, requested_on_day }`,
   * `invalid_ids`) are documented without an example; it is a list of jobs here, as "Get deletion jobs" shows.
   */
  app.post('/api/2/deletions/users', async (request, reply) => {
    if (!basicOk(request, reply, keys)) return reply
    const body = (request.body ?? {}) as {
      amplitude_ids?: unknown
      user_ids?: unknown
      requester?: unknown
      ignore_invalid_id?: unknown
    }
    const ids = [
      ...(Array.isArray(body.amplitude_ids) ? body.amplitude_ids : []),
      ...(Array.isArray(body.user_ids) ? body.user_ids : []),
    ]
    if (ids.length === 0) return bad(reply, 'amplitude_ids or user_ids is required')
    if (ids.length > 100) return bad(reply, 'at most 100 ids per request')
    const flag = body.ignore_invalid_id
    if (flag !== undefined && typeof flag !== 'boolean' && flag !== 'true' && flag !== 'false')
      return bad(reply, 'ignore_invalid_id must be a boolean')
    const ignoreInvalid = flag === true || flag === 'true'
    const day = new Date().toISOString().slice(0, 10)
    const found: AmplitudeUser[] = []
    const invalid: unknown[] = []
    for (const id of ids) {
      const u = [...state.users.values()].find(
        (x) => !x.deleted && (x.amplitude_id === Number(id) || x.user_id === id),
      )
      if (u) found.push(u)
      else invalid.push(id)
    }
    if (invalid.length > 0 && !ignoreInvalid)
      return bad(reply, `Some users were not found in the project: ${invalid.join(', ')}`)
    for (const u of found) u.deleted = true
    const done = found.map((u) => ({
      amplitude_id: u.amplitude_id,
      requester: body.requester ?? null,
      requested_on_day: day,
    }))
    return [
      { day, amplitude_ids: done, status: 'staging', ...(ignoreInvalid ? { invalid_ids: invalid } : {}) },
    ]
  })
}

/**
 * Buckets of the Dashboard REST interval `i` over whole days start..end of the project's time zone ("The
 * Dashboard REST API time zone is the same as your Amplitude project's time zone": amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md).
 * Computed on the wall clock (`start`/`end` are the days' UTC-midnight ms), then mapped to instants.
 */
function xValuesOf(
  start: number,
  end: number,
  i: string,
  zone: string,
): Array<{ label: string; from: number; to: number }> | undefined {
  const wall = wallBucketsOf(start, end, i)
  return wall?.map((b) => ({ ...b, from: instantOfWall(b.from, zone), to: instantOfWall(b.to, zone) }))
}

function wallBucketsOf(
  start: number,
  end: number,
  i: string,
): Array<{ label: string; from: number; to: number }> | undefined {
  const out: Array<{ label: string; from: number; to: number }> = []
  const stop = end + DAY_MS
  if (i === '1' || i === '-3600000') {
    const step = i === '1' ? DAY_MS : HOUR_MS
    for (let t = start; t < stop; t += step) {
      const iso = new Date(t).toISOString()
      out.push({
        label: i === '1' ? iso.slice(0, 10) : `${iso.slice(0, 10)}T${iso.slice(11, 16)}`,
        from: t,
        to: t + step,
      })
    }
    return out
  }
  if (i === '7' || i === '30') {
    for (let t = start; t < stop; ) {
      const d = new Date(t)
      const next = i === '7' ? t + 7 * DAY_MS : utc(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
      out.push({ label: new Date(t).toISOString().slice(0, 10), from: t, to: Math.min(next, stop) })
      t = next
    }
    return out
  }
  return undefined
}

/**
 * Built-in group-by properties (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md,
 * "Shared query parameters"). `os` is "`os_name` + `os_version`", the mobile OS or the browser: "ios 9.1",
 * "Chrome 46" (…/get-started/en/user-property-definitions.md).
 */
const GROUPS: Readonly<Record<string, (e: AmplitudeEventRecord) => string>> = {
  country: (e) => e.country,
  city: (e) => e.city,
  region: (e) => e.region,
  device_type: (e) => e.device_type,
  os: (e) => [e.os_name, e.os_version].filter((v) => typeof v === 'string' && v !== '').join(' '),
  platform: (e) => e.platform,
  language: (e) => e.language,
}

export function registerDashboardRoutes(app: FastifyInstance, state: AmplitudeState, keys: Keys): void {
  const window = (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as Query
    const start = dayOf(q.start)
    const end = dayOf(q.end)
    if (start === undefined || end === undefined) return void bad(reply, 'start and end must be YYYYMMDD')
    if (end < start) return void bad(reply, 'end must not be before start')
    const all = xValuesOf(start, end, q.i ?? '1', state.timezone)
    if (!all) return void bad(reply, `i must be one of -3600000, 1, 7, 30`)
    // "hourly segmentation displays up to 7 days of data" (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, `i`): the hours of the
    // window's last 7 days, and no error for the rest.
    // "daily displays up to 365 days of data" (same place): likewise the window's last 365 days.
    const x =
      q.i === '-3600000'
        ? all.slice(-SEGMENTATION_HOURLY_MAX_DAYS * 24)
        : (q.i ?? '1') === '1'
          ? all.slice(-SEGMENTATION_DAILY_MAX_DAYS)
          : all
    return {
      q,
      x,
      events: state.events.filter(
        (e) =>
          e.eventTimeMs >= instantOfWall(start, state.timezone) &&
          e.eventTimeMs < instantOfWall(end + DAY_MS, state.timezone),
      ),
    }
  }
  const measure = (events: readonly AmplitudeEventRecord[], m: string) =>
    m === 'uniques' ? new Set(events.map((e) => e.amplitude_id)).size : events.length

  /** Event Segmentation: `e`, `m` (uniques, totals), `i`, `g`, `limit`; range totals in `seriesCollapsed` (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md). */
  app.get('/api/2/events/segmentation', async (request, reply) => {
    if (!basicOk(request, reply, keys)) return reply
    const w = window(request, reply)
    if (!w) return reply
    let e: { event_type?: unknown }
    try {
      e = JSON.parse(w.q.e ?? '') as { event_type?: unknown }
    } catch {
      return bad(reply, 'e must be a JSON event object')
    }
    if (typeof e?.event_type !== 'string') return bad(reply, 'e.event_type is required')
    const m = w.q.m ?? 'uniques'
    if (m !== 'uniques' && m !== 'totals') return bad(reply, `m '${m}' is not supported here`)
    const type = e.event_type
    const chosen =
      type === '_all' || type === '_active'
        ? w.events
        : w.events.filter((x) => x.event_type === type.replace(/^ce:/, ''))
    const group = w.q.g ? GROUPS[w.q.g] : undefined
    if (w.q.g && !group) return bad(reply, `g '${w.q.g}' is not a built-in property`)
    // "The number of Group By values returned (default: 100). The limit is 1000." (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md)
    let limit = SEGMENTATION_DEFAULT_LIMIT
    if (w.q.limit !== undefined) {
      limit = Number(w.q.limit)
      if (!/^\d+$/.test(w.q.limit) || limit < 1 || limit > SEGMENTATION_MAX_LIMIT)
        return bad(reply, `limit must be between 1 and ${SEGMENTATION_MAX_LIMIT}`)
    }
    const segments = new Map<string, AmplitudeEventRecord[]>()
    for (const ev of chosen) {
      const key = group ? group(ev) : '0'
      const list = segments.get(key)
      if (list) list.push(ev)
      else segments.set(key, [ev])
    }
    if (!group && segments.size === 0) segments.set('0', [])
    const keysSorted = [...segments.keys()]
      .sort((a, b) => (segments.get(b)?.length ?? 0) - (segments.get(a)?.length ?? 0))
      .slice(0, limit)
    return {
      data: {
        series: keysSorted.map((k) =>
          w.x.map((b) =>
            measure(
              (segments.get(k) ?? []).filter((ev) => ev.eventTimeMs >= b.from && ev.eventTimeMs < b.to),
              m,
            ),
          ),
        ),
        seriesLabels: group ? keysSorted : [0],
        seriesCollapsed: keysSorted.map((k) => [{ setId: '', value: measure(segments.get(k) ?? [], m) }]),
        xValues: w.x.map((b) => b.label),
      },
    }
  })

  /** Active and new user counts: `m` "new" or "active", default active (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md). */
  app.get('/api/2/users', async (request, reply) => {
    if (!basicOk(request, reply, keys)) return reply
    const w = window(request, reply)
    if (!w) return reply
    const m = w.q.m ?? 'active'
    if (m !== 'active' && m !== 'new') return bad(reply, `m must be active or new`)
    const firstSeen = new Map<number, number>()
    for (const e of state.events)
      firstSeen.set(e.amplitude_id, Math.min(firstSeen.get(e.amplitude_id) ?? Infinity, e.eventTimeMs))
    const series = w.x.map((b) => {
      const users = new Set(
        w.events.filter((e) => e.eventTimeMs >= b.from && e.eventTimeMs < b.to).map((e) => e.amplitude_id),
      )
      return m === 'active' ? users.size : [...users].filter((u) => (firstSeen.get(u) ?? 0) >= b.from).length
    })
    return {
      data: {
        series: [series],
        seriesMeta: [m === 'active' ? 'Active Users' : 'New Users'],
        xValues: w.x.map((b) => b.label),
      },
    }
  })

  /** Average session length in seconds per interval (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, Average session length). */
  app.get('/api/2/sessions/average', async (request, reply) => {
    if (!basicOk(request, reply, keys)) return reply
    const w = window(request, reply)
    if (!w) return reply
    const series = w.x.map((b) => {
      const sessions = new Map<string, { min: number; max: number }>()
      for (const e of w.events) {
        if (e.eventTimeMs < b.from || e.eventTimeMs >= b.to || e.session_id === -1) continue
        const k = `${e.amplitude_id}:${e.session_id}`
        const s = sessions.get(k) ?? { min: e.eventTimeMs, max: e.eventTimeMs }
        s.min = Math.min(s.min, e.eventTimeMs)
        s.max = Math.max(s.max, e.eventTimeMs)
        sessions.set(k, s)
      }
      const lengths = [...sessions.values()].map((s) => (s.max - s.min) / 1000)
      return lengths.length
        ? Math.round((lengths.reduce((a, l) => a + l, 0) / lengths.length) * 100) / 100
        : 0
    })
    return { data: { series: [series], seriesMeta: [{ segmentIndex: 0 }], xValues: w.x.map((b) => b.label) } }
  })
}
