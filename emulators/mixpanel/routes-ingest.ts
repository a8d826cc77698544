import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { checkServiceAccount } from './auth.js'
import { IMPORT_MAX_EVENTS, SERVER_LOCATION } from './constants.js'
import type { MixpanelEventRecord, MixpanelState } from './state.js'
import { truncatedEventProperties, truncatedProfileValues } from './truncate.js'

/** "$insert_ids must be ≤ 36 bytes and contain only alphanumeric characters or "-"" (mixpanel/docs@ba22906:reference/import-events.mdx). */
const INSERT_ID = /^[A-Za-z0-9-]{1,36}$/
/** "We will reject events with time values that are before 1971-01-01 or more than 1 hour in the future" (same page). */
const MIN_TIME_S = Date.UTC(1971, 0, 1) / 1000

interface FailedRecord {
  index: number
  $insert_id?: unknown
  field: string
  message: string
}

/**
 * Validates one `/import` record the way strict mode does; answers the record with `time` in ms. `time` is
 * "in seconds or milliseconds since epoch"; at most 255 properties (mixpanel/docs@ba22906:reference/import-events.mdx).
 */
function checkRecord(raw: unknown, index: number, now: number): MixpanelEventRecord | FailedRecord {
  const fail = (field: string, message: string, id?: unknown): FailedRecord => ({
    index,
    $insert_id: id,
    field,
    message,
  })
  if (!raw || typeof raw !== 'object') return fail('event', "'event' must be an object")
  const r = raw as { event?: unknown; properties?: Record<string, unknown> }
  const p = r.properties
  if (typeof r.event !== 'string' || r.event === '')
    return fail('event', "'event' must be a non-empty string")
  if (!p || typeof p !== 'object') return fail('properties', "'properties' must be an object")
  const id = p.$insert_id
  const time = p.time
  if (typeof time !== 'number' || !Number.isFinite(time)) {
    return fail(
      'properties.time',
      "'properties.time' is invalid: must be specified as seconds since epoch",
      id,
    )
  }
  const ms = time > 1e11 ? time : time * 1000
  if (ms < MIN_TIME_S * 1000 || ms > now + 3_600_000) {
    return fail(
      'properties.time',
      "'properties.time' is invalid: must be after 1971 and at most one hour in the future",
      id,
    )
  }
  if (typeof p.distinct_id !== 'string')
    return fail('properties.distinct_id', "'properties.distinct_id' must be specified", id)
  if (typeof id !== 'string' || !INSERT_ID.test(id)) {
    return fail(
      'properties.$insert_id',
      "'properties.$insert_id' must be at most 36 characters of [A-Za-z0-9-]",
      id,
    )
  }
  if (Object.keys(p).length > 255) return fail('properties', 'events may have at most 255 properties', id)
  return {
    event: r.event,
    properties: truncatedEventProperties({ ...p, time: ms, distinct_id: p.distinct_id, $insert_id: id }),
  }
}

function bodyRecords(body: unknown): unknown[] | undefined {
  if (Array.isArray(body)) return body
  if (typeof body === 'string') {
    try {
      return body
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as unknown)
    } catch {
      return undefined
    }
  }
  return undefined
}

export function registerIngestRoutes(app: FastifyInstance, state: MixpanelState): void {
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'string' }, (_r, body, done) =>
    done(null, body),
  )

  /** Import: service-account auth with `project_id`, a JSON array or NDJSON body (mixpanel/docs@ba22906:reference/import-events.mdx). */
  app.post('/import', async (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as Record<string, string | undefined>
    if (!checkServiceAccount(state, request, reply, q.project_id ?? '')) return reply
    const records = bodyRecords(request.body)
    const bad = (error: string) =>
      reply.code(400).send({ code: 400, error, num_records_imported: 0, status: 'Bad Request' })
    if (!records) return bad('request body must be a JSON array or newline-delimited JSON')
    if (records.length > IMPORT_MAX_EVENTS) return bad(`a batch may hold at most ${IMPORT_MAX_EVENTS} events`)
    const now = Date.now()
    const checked = records.map((r, i) => checkRecord(r, i, now))
    const failed = checked.filter((c): c is FailedRecord => 'field' in c)
    const good = checked.filter((c): c is MixpanelEventRecord => !('field' in c))
    // Strict mode answers 400 with `failed_records` when any event fails, and still ingests the others:
    // "If some of the rows passed validation, we will ingest them and return their count in
    // `num_records_imported`" (mixpanel/docs@ba22906:reference/import-events.mdx, "Example of a validation error").
    for (const e of good) state.importEvent(e)
    if (failed.length > 0 && q.strict === '1') {
      return reply.code(400).send({
        code: 400,
        error: 'some data points in the request failed validation',
        num_records_imported: good.length,
        status: 'Bad Request',
        failed_records: failed,
      })
    }
    return { code: 200, num_records_imported: good.length, status: 'OK' }
  })

  /**
   * Profile updates: project token in each record; `verbose=1` answers JSON instead of `1`/`0`
   * (mixpanel/docs@ba22906:openapi/ingestion.openapi.yaml, /engage#profile-set). Accepted updates become
   * readable later (state.ts `queueProfileUpdate`).
   */
  app.post('/engage', async (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.query as Record<string, string | undefined>
    const verbose = query.verbose === '1'
    // `ip` "Defaults to 1 which would use the IP address of the request to update profile geolocation";
    // only `ip=0` turns it off (mixpanel/docs@ba22906:openapi/ingestion.openapi.yaml, /engage `ip`), and
    // "Every time you set profile properties, the geolocation properties are overwritten"
    // (https://docs.mixpanel.com/docs/tracking-best-practices/geolocation).
    const geolocate = query.ip !== '0'
    const answer = (ok: boolean, error: string | null) =>
      verbose ? reply.send({ status: ok ? 1 : 0, error }) : reply.type('text/plain').send(ok ? '1' : '0')
    const records = bodyRecords(request.body)
    if (!records) return answer(false, 'data, missing or empty')
    const updates: Array<() => void> = []
    for (const raw of records) {
      const r = raw as Record<string, unknown>
      if (r.$token !== state.projectToken) return answer(false, 'token, invalid or missing')
      const id = r.$distinct_id
      if (typeof id !== 'string' || id === '') return answer(false, '$distinct_id, missing or empty')
      if ('$delete' in r) {
        updates.push(() => state.profiles.delete(id))
        continue
      }
      const set = r.$set
      if (!set || typeof set !== 'object')
        return answer(false, 'no supported operation ($set, $delete) in update')
      const values = truncatedProfileValues(set as Record<string, unknown>)
      const located = geolocate ? { ...values, ...SERVER_LOCATION } : values
      updates.push(() => {
        // `$created` "is not auto-populated" (mixpanel/docs@ba22906:docs/data-structure/property-reference/
        // reserved-properties.mdx); `$last_seen` ("Updated at") is maintained on every profile update
        // (mixpanel/docs@ba22906:docs/data-structure/user-profiles.mdx).
        const profile = state.profiles.get(id) ?? { $distinct_id: id, $properties: {} }
        Object.assign(profile.$properties, located, { $last_seen: new Date().toISOString().slice(0, 19) })
        state.profiles.set(id, profile)
      })
    }
    for (const update of updates) state.queueProfileUpdate(update)
    return answer(true, null)
  })
}
