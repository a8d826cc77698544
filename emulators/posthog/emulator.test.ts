import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_PERSONAL_API_KEY,
  DEFAULT_PROJECT_API_KEY,
  type PosthogEmulator,
  type QueryLimitOptions,
  startPosthogEmulator,
} from './index.js'

const AUTH = { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}` }

let emulator: PosthogEmulator

beforeAll(async () => {
  emulator = await startPosthogEmulator({ seed: 42, size: { events: 600, sessions: 80, persons: 30 } })
})
afterAll(async () => emulator.close())

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) {
  const res = await fetch(path.startsWith('http') ? path : `${emulator.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>,
  }
}

async function hogql(query: string, projectId = 1) {
  return call('POST', `/api/projects/${projectId}/query/`, { query: { kind: 'HogQLQuery', query } })
}

async function rows(query: string): Promise<unknown[][]> {
  const res = await hogql(query)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.results as unknown[][]
}

describe('authentication', () => {
  it('refuses a missing personal API key like PostHog', async () => {
    const res = await call('GET', '/api/users/@me/', undefined, {})
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    })
  })

  it('refuses a wrong personal API key like PostHog', async () => {
    const res = await call('GET', '/api/projects/', undefined, { authorization: 'Bearer phx_wrong' })
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({
      type: 'authentication_error',
      code: 'authentication_failed',
      attr: null,
    })
    expect(res.body.detail).toMatch(/Personal API key .* is invalid/)
  })

  it('answers @me with the organization and the current team', async () => {
    const res = await call('GET', '/api/users/@me/')
    expect(res.status).toBe(200)
    const me = res.body as {
      organization: { id: string }
      team: { id: number; api_token: string; timezone: string }
    }
    expect(me.organization.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(me.team).toMatchObject({ id: 1, api_token: DEFAULT_PROJECT_API_KEY, timezone: 'UTC' })
  })
})

describe('projects', () => {
  it('pages with absolute next and previous links on the emulator host', async () => {
    const me = (await call('GET', '/api/users/@me/')).body as { organization: { id: string } }
    const first = await call('GET', `/api/organizations/${me.organization.id}/projects/?limit=1`)
    expect(first.body).toMatchObject({ count: 2, previous: null })
    const next = first.body.next as string
    expect(next).toBe(`${emulator.url}/api/organizations/${me.organization.id}/projects/?limit=1&offset=1`)
    const second = await call('GET', next)
    expect((second.body.results as { id: number }[]).map((p) => p.id)).toEqual([2])
    expect(second.body.next).toBeNull()
    expect(second.body.previous).toBe(
      `${emulator.url}/api/organizations/${me.organization.id}/projects/?limit=1`,
    )
  })

  it('creates, reads, updates and deletes a project, validating like DRF', async () => {
    const created = await call('POST', '/api/projects/', { name: 'Docs site', timezone: 'Europe/Berlin' })
    expect(created.status).toBe(201)
    const id = created.body.id as number
    expect(created.body).toMatchObject({
      name: 'Docs site',
      timezone: 'Europe/Berlin',
      organization: expect.any(String),
    })
    expect((await call('GET', '/api/projects/?search=docs')).body.count).toBe(1)
    const bad = await call('PATCH', `/api/projects/${id}/`, { timezone: 'Mars/Olympus' })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"Mars/Olympus" is not a valid choice.',
      attr: 'timezone',
    })
    const patched = await call('PATCH', `/api/projects/${id}/`, { name: 'Docs' })
    expect(patched.body).toMatchObject({ id, name: 'Docs', timezone: 'Europe/Berlin' })
    expect((await call('DELETE', `/api/projects/${id}/`)).status).toBe(204)
    const gone = await call('GET', `/api/projects/${id}/`)
    expect(gone.status).toBe(404)
    expect(gone.body).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: 'Not found.',
      attr: null,
    })
  })
})

describe('persons', () => {
  it('lists with limit/offset, a next link when the page is full, and filters', async () => {
    const page = await call('GET', '/api/projects/1/persons/?limit=5')
    const results = page.body.results as {
      id: string
      uuid: string
      distinct_ids: string[]
      properties: { email?: string }
    }[]
    expect(results).toHaveLength(5)
    expect(page.body.next).toBe(`${emulator.url}/api/projects/1/persons/?limit=5&offset=5`)
    const someone = results.find((p) => p.properties.email) ?? results[0]!
    const byDistinct = await call('GET', `/api/projects/1/persons/?distinct_id=${someone.distinct_ids[0]}`)
    expect((byDistinct.body.results as { uuid: string }[]).map((p) => p.uuid)).toEqual([someone.uuid])
    const detail = await call('GET', `/api/projects/1/persons/${someone.uuid}/`)
    expect(typeof detail.body.id).toBe('number')
    expect((await call('GET', `/api/projects/1/persons/${detail.body.id}/`)).body.uuid).toBe(someone.uuid)
  })

  it('shapes list rows like get_serialized_people and the detail like PersonSerializer', async () => {
    const all = (await call('GET', '/api/projects/1/persons/?limit=100')).body.results as Record<
      string,
      unknown
    >[]
    const identified = all.find((p) => (p.distinct_ids as string[]).some((d) => d.startsWith('user_')))!
    // A list row: id is the uuid, no last_seen_at, distinct ids in database (link) order: anonymous first.
    expect(Object.keys(identified).sort()).toEqual(
      [
        'created_at',
        'distinct_ids',
        'id',
        'is_identified',
        'matched_recordings',
        'name',
        'properties',
        'type',
        'uuid',
        'value_at_data_point',
      ].sort(),
    )
    expect(identified).toMatchObject({ type: 'person', id: identified.uuid, is_identified: true })
    const ids = identified.distinct_ids as string[]
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(ids[1]).toMatch(/^user_/)
    // The detail: numeric id, identified ids first, no last_seen_at.
    const detail = (await call('GET', `/api/projects/1/persons/${identified.uuid}/`)).body
    expect(Object.keys(detail).sort()).toEqual(
      ['created_at', 'distinct_ids', 'id', 'name', 'properties', 'uuid'].sort(),
    )
    expect(detail.distinct_ids).toEqual([ids[1], ids[0]])
    // Lists are ordered by created_at DESC, then uuid.
    const created = all.map((p) => Date.parse(p.created_at as string))
    expect(created).toEqual([...created].sort((a, b) => b - a))
  })

  it('refuses a distinct id in the path with PostHog hint, and creation', async () => {
    const res = await call('GET', '/api/projects/1/persons/user_1/')
    expect(res.status).toBe(400)
    expect(res.body.detail).toMatch(/please use \/persons\?distinct_id=user_1 instead/)
    expect((await call('POST', '/api/projects/1/persons/', {})).status).toBe(405)
  })

  it('updates properties with 202 and deletes with 202', async () => {
    const person = (
      (await call('GET', '/api/projects/1/persons/?limit=1')).body.results as { id: string }[]
    )[0]!
    const missing = await call('PATCH', `/api/projects/1/persons/${person.id}/`, {})
    expect(missing.status).toBe(400)
    expect(missing.body).toMatchObject({ attr: 'properties', type: 'validation_error' })
    const updated = await call('PATCH', `/api/projects/1/persons/${person.id}/`, {
      properties: { plan: 'gold' },
    })
    expect(updated.status).toBe(202)
    expect(updated.text).toBe('')
    expect((await call('GET', `/api/projects/1/persons/${person.id}/`)).body.properties).toMatchObject({
      plan: 'gold',
    })
    expect((await call('DELETE', `/api/projects/1/persons/${person.id}/`)).status).toBe(202)
    expect((await call('GET', `/api/projects/1/persons/${person.id}/`)).status).toBe(404)
  })
})

describe('events', () => {
  it('gets one event in the legacy API shape', async () => {
    const [[uuid, event, distinctId]] = (await rows(
      'SELECT uuid, event, distinct_id FROM events ORDER BY timestamp LIMIT 1',
    )) as [[string, string, string]]
    const res = await call('GET', `/api/projects/1/events/${uuid}/`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: uuid, event, distinct_id: distinctId, elements: [] })
    expect(res.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
    expect((res.body.properties as Record<string, unknown>).$session_id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers 400 for a non-UUID and 404 for an unknown one, with PostHog bodies', async () => {
    const bad = await call('GET', '/api/projects/1/events/not-a-uuid/')
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({
      detail: 'Invalid UUID',
      code: 'invalid',
      type: 'validation_error',
      attr: null,
    })
    const missing = await call('GET', '/api/projects/1/events/0190a000-0000-7000-8000-000000000000/')
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: 'Not found.',
      attr: null,
    })
  })
})

describe('query API over seeded data', () => {
  it('counts exactly the seeded events, sessions and persons', async () => {
    const data = emulator.state.projects.get(1)!
    expect(await rows('SELECT count() FROM events')).toEqual([[data.events.count]])
    expect(await rows('SELECT count() FROM sessions')).toEqual([[data.sessions.list.length]])
    const perEvent = await rows('SELECT event, count() FROM events GROUP BY event ORDER BY event')
    expect(perEvent.reduce((n, r) => n + (r[1] as number), 0)).toBe(600)
  })

  it("seeds identified persons' first visit under their anonymous id, resolved to the person", async () => {
    const persons = await call('GET', '/api/projects/1/persons/?limit=100')
    const identified = (persons.body.results as { uuid: string; distinct_ids: string[] }[]).filter(
      (p) => p.distinct_ids.length === 2,
    )
    let anonymousEvents = 0
    for (const p of identified) {
      const byId = await rows(
        `SELECT distinct_id, count() FROM events WHERE person_id = '${p.uuid}' GROUP BY distinct_id`,
      )
      for (const [distinctId, count] of byId) {
        expect(p.distinct_ids).toContain(distinctId)
        if (distinctId === p.distinct_ids[0]) anonymousEvents += Number(count)
      }
    }
    expect(anonymousEvents).toBeGreaterThan(0)
  })

  it('keeps the sessions table consistent with the events', async () => {
    const [[id, pageviews, start, end]] = (await rows(
      'SELECT session_id, $pageview_count, $start_timestamp, $end_timestamp FROM sessions ORDER BY $pageview_count DESC LIMIT 1',
    )) as [[string, number, string, string]]
    const totals = await rows(
      `SELECT countIf(event = '$pageview'), min(timestamp), max(timestamp) FROM events WHERE properties.$session_id = '${id}'`,
    )
    expect(totals).toEqual([[pageviews, start, end]])
  })

  it('answers with the PostHog response shape and hasMore', async () => {
    const res = await hogql('SELECT uuid, timestamp FROM events ORDER BY timestamp DESC LIMIT 10')
    expect(res.body).toMatchObject({
      hasMore: true,
      limit: 10,
      offset: 0,
      is_cached: false,
      columns: ['uuid', 'timestamp'],
    })
    expect(res.body.types).toEqual([
      ['uuid', 'UUID'],
      ['timestamp', "DateTime64(6, 'UTC')"],
    ])
    expect(res.body.hogql).toBe('SELECT uuid, timestamp FROM events ORDER BY timestamp DESC LIMIT 10')
  })

  it('refuses HogQL outside the subset and other query kinds with 400 validation errors', async () => {
    const refused = await hogql('SELECT event FROM events ARRAY JOIN x')
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      type: 'validation_error',
      code: 'unsupported_by_emulator',
      attr: null,
    })
    const kind = await call('POST', '/api/projects/1/query/', { query: { kind: 'TrendsQuery', series: [] } })
    expect(kind.status).toBe(400)
  })
})

describe('hog functions', () => {
  it('refuses DELETE with a bare 405 and removes a destination with PATCH deleted: true', async () => {
    const created = await call('POST', '/api/projects/1/hog_functions/', {
      type: 'destination',
      template_id: 'template-webhook',
      inputs: { url: { value: 'http://127.0.0.1:9/hook' } },
    })
    expect(created.status).toBe(201)
    const path = `/api/projects/1/hog_functions/${created.body.id}/`
    const refused = await call('DELETE', path)
    expect([refused.status, refused.text]).toEqual([405, ''])
    expect((await call('PATCH', path, { deleted: true })).status).toBe(200)
    expect((await call('GET', path)).status).toBe(404)
  })

  it('lists destinations without their inputs, searched by name, in limit/offset pages, deleted ones left out', async () => {
    const make = async (name: string) =>
      (
        await call('POST', '/api/projects/1/hog_functions/', {
          type: 'destination',
          template_id: 'template-webhook',
          name,
          inputs: { url: { value: `http://127.0.0.1:9/${name.replace(/\W/g, '')}` } },
        })
      ).body.id as string
    const a = await make('Listed alpha one')
    const b = await make('Listed alpha two')
    const gone = await make('Listed alpha gone')
    await call('PATCH', `/api/projects/1/hog_functions/${gone}/`, { deleted: true })
    type Page = { count: number; next: string | null; results: Record<string, unknown>[] }
    const list = async (query: string) =>
      (await call('GET', `/api/projects/1/hog_functions/?${query}`)).body as unknown as Page
    const page = await list('search=listed%20ALPHA&limit=1')
    expect(page.count).toBe(2)
    expect(page.results).toHaveLength(1)
    expect(page.results[0]).not.toHaveProperty('inputs')
    expect(page.results[0]).not.toHaveProperty('deleted')
    expect(page.next).toMatch(/offset=1/)
    const rest = await list('search=listed%20ALPHA&limit=1&offset=1')
    expect(rest.next).toBeNull()
    expect([page.results[0]?.id, rest.results[0]?.id].sort()).toEqual([a, b].sort())
    expect((await list('search=alpha,one')).count).toBe(1)
    // The inputs are read one function at a time.
    const one = await call('GET', `/api/projects/1/hog_functions/${a}/`)
    expect((one.body.inputs as { url: { value: string } }).url.value).toBe(
      'http://127.0.0.1:9/Listedalphaone',
    )
  })
})

describe('query errors', () => {
  it("answers HogQL's own errors with DRF's invalid code and ClickHouse's with their code name", async () => {
    const bodyOf = async (query: string) => {
      const res = await hogql(query)
      expect(res.status, query).toBe(400)
      return res.body
    }
    expect(await bodyOf('SELECT nope FROM events')).toEqual({
      type: 'validation_error',
      code: 'invalid',
      detail: 'Unable to resolve field: nope',
      attr: null,
    })
    expect(await bodyOf('SELECT event FROM nowhere')).toMatchObject({
      code: 'invalid',
      detail: 'Unknown table "nowhere".',
    })
    expect(await bodyOf('SELECT event FROM events WHERE event = 1')).toMatchObject({
      code: 'illegal_type_of_argument',
    })
    expect(await bodyOf("SELECT event FROM events WHERE uuid = 'x'")).toMatchObject({
      code: 'cannot_parse_uuid',
    })
    // PostHog replaces ClickHouse's parse messages (they quote data) with fixed ones.
    expect(await bodyOf("SELECT event FROM events WHERE timestamp > 'yesterday'")).toMatchObject({
      code: 'cannot_parse_datetime',
      detail: 'Cannot parse a date and time. Check your datetime values and their format.',
    })
    expect(await bodyOf('SELECT event FROM events WHERE count() > 1')).toMatchObject({
      code: 'illegal_aggregation',
      detail: 'Aggregate function count() is found in WHERE in query',
    })
  })
})

describe("the project's time zone", () => {
  it('seeds a second project in New York and says so in the project', async () => {
    expect((await call('GET', '/api/projects/2/')).body.timezone).toBe('America/New_York')
    expect((await call('GET', '/api/projects/1/')).body.timezone).toBe('UTC')
  })

  it('cuts days and hours in the project zone and answers date-times with its offset', async () => {
    const res = await hogql(
      'SELECT timestamp, toDate(timestamp), toStartOfDay(timestamp), toStartOfHour(timestamp) FROM events ORDER BY timestamp LIMIT 50',
      2,
    )
    expect(res.status).toBe(200)
    expect(res.body.types).toEqual([
      ['timestamp', "DateTime64(6, 'America/New_York')"],
      ['toDate(timestamp)', 'Date'],
      ['toStartOfDay(timestamp)', "DateTime('America/New_York')"],
      ['toStartOfHour(timestamp)', "DateTime('America/New_York')"],
    ])
    for (const [ts, day, dayStart, hourStart] of res.body.results as string[][]) {
      // December in New York is UTC-5.
      expect(ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}-05:00$/)
      const instant = Date.parse(ts!)
      const local = new Date(instant - 5 * 3_600_000).toISOString()
      expect(day).toBe(local.slice(0, 10))
      expect(dayStart).toBe(`${local.slice(0, 10)}T00:00:00-05:00`)
      expect(hourStart).toBe(`${local.slice(0, 13)}:00:00-05:00`)
      expect(Date.parse(dayStart!)).toBeLessThanOrEqual(instant)
    }
  })

  it('reads a date-time literal without offset in the project zone, and one with an offset as given', async () => {
    const res = await hogql(
      "SELECT toDateTime('2024-12-20 00:00:00'), toDateTime('2024-12-20T00:00:00Z'), toDate('2024-12-20'), toDateTime('2024-12-20 00:00:00', 'UTC') FROM events LIMIT 1",
      2,
    )
    expect((res.body.results as string[][])[0]).toEqual([
      '2024-12-20T00:00:00.000000-05:00',
      '2024-12-19T19:00:00.000000-05:00',
      '2024-12-20',
      '2024-12-20T00:00:00.000000Z',
    ])
    const count = async (where: string) =>
      ((await hogql(`SELECT count() FROM events WHERE ${where}`, 2)).body.results as number[][])[0]![0]
    const local = await count("timestamp >= '2024-12-05 00:00:00' AND timestamp < '2024-12-25 00:00:00'")
    const explicit = await count("timestamp >= '2024-12-05T05:00:00Z' AND timestamp < '2024-12-25T05:00:00Z'")
    expect(local).toBe(explicit)
  })

  it('crosses a daylight-saving change: a New York day is 23 or 25 hours long', async () => {
    const emu = await startPosthogEmulator({
      seed: 5,
      size: { events: 600 },
      until: '2024-11-10T00:00:00Z',
      timezones: ['America/New_York'],
    })
    try {
      const res = await fetch(`${emu.url}/api/projects/1/query/`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: {
            kind: 'HogQLQuery',
            query:
              "SELECT toStartOfDay(timestamp) AS d FROM events WHERE toDate(timestamp) IN ('2024-11-02', '2024-11-03', '2024-11-04') GROUP BY d ORDER BY d",
          },
        }),
      })
      const days = ((await res.json()) as { results: string[][] }).results.map((r) => r[0])
      expect(days).toEqual([
        '2024-11-02T00:00:00-04:00',
        '2024-11-03T00:00:00-04:00',
        '2024-11-04T00:00:00-05:00',
      ])
    } finally {
      await emu.close()
    }
  })
})

describe('query cache', () => {
  const capturePageview = (distinctId: string) =>
    call('POST', '/i/v0/e/', {
      api_key: DEFAULT_PROJECT_API_KEY,
      event: '$pageview',
      distinct_id: distinctId,
      timestamp: '2024-12-30T12:00:00Z',
    })

  it('answers a repeated query from the cache unless refresh forces a calculation', async () => {
    const query = {
      kind: 'HogQLQuery',
      query: "SELECT count() FROM events WHERE distinct_id = 'cache_probe'",
    }
    const first = await call('POST', '/api/projects/1/query/', { query })
    expect(first.body).toMatchObject({ is_cached: false, results: [[0]], timezone: 'UTC' })
    expect(await capturePageview('cache_probe')).toMatchObject({ status: 200 })
    // No refresh means `blocking`: the cached answer, without the new event.
    const cached = await call('POST', '/api/projects/1/query/', { query })
    expect(cached.body).toMatchObject({ is_cached: true, results: [[0]], cache_key: first.body.cache_key })
    expect(cached.body.last_refresh).toBe(first.body.last_refresh)
    for (const refresh of ['blocking', 'force_cache', false]) {
      expect((await call('POST', '/api/projects/1/query/', { query, refresh })).body.results).toEqual([[0]])
    }
    const fresh = await call('POST', '/api/projects/1/query/', { query, refresh: 'force_blocking' })
    expect(fresh.body).toMatchObject({ is_cached: false, results: [[1]] })
    expect((await call('POST', '/api/projects/1/query/', { query })).body.results).toEqual([[1]])
    await capturePageview('cache_probe')
    expect((await call('POST', '/api/projects/1/query/', { query, refresh: true })).body.results).toEqual([
      [2],
    ])
  })

  it('recalculates a cached result once it is 5 minutes old', async () => {
    const query = {
      kind: 'HogQLQuery',
      query: "SELECT count() FROM events WHERE distinct_id = 'stale_probe'",
    }
    expect((await call('POST', '/api/projects/1/query/', { query })).body.results).toEqual([[0]])
    await capturePageview('stale_probe')
    emulator.state.queryCache.advanceClock(4 * 60_000)
    expect((await call('POST', '/api/projects/1/query/', { query })).body).toMatchObject({
      is_cached: true,
      results: [[0]],
    })
    emulator.state.queryCache.advanceClock(61_000)
    expect((await call('POST', '/api/projects/1/query/', { query })).body).toMatchObject({
      is_cached: false,
      results: [[1]],
    })
  })

  it('keys the cache by project: the same text in another project is calculated there', async () => {
    const query = { kind: 'HogQLQuery', query: 'SELECT count() FROM events' }
    await call('POST', '/api/projects/1/query/', { query })
    const other = await call('POST', '/api/projects/2/query/', { query })
    expect(other.body.is_cached).toBe(false)
  })
})

describe('query limits', () => {
  async function withEmulator(
    query: QueryLimitOptions,
    fn: (emu: PosthogEmulator, run: (q: string, projectId?: number) => Promise<Response>) => Promise<void>,
  ) {
    const emu = await startPosthogEmulator({ seed: 9, size: { events: 600 }, query })
    const run = (q: string, projectId = 1) =>
      fetch(`${emu.url}/api/projects/${projectId}/query/`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ query: { kind: 'HogQLQuery', query: q }, refresh: 'force_blocking' }),
      })
    try {
      await fn(emu, run)
    } finally {
      await emu.close()
    }
  }

  it('runs at most 3 queries per team at once and throttles a fourth like PostHog', async () => {
    await withEmulator({ latencyMs: 300, slotWaitMs: 0 }, async (emu, run) => {
      const answers = await Promise.all([1, 2, 3, 4].map(() => run('SELECT count() FROM events')))
      const statuses = answers.map((r) => r.status).sort()
      expect(statuses).toEqual([200, 200, 200, 429])
      const throttled = answers.find((r) => r.status === 429)!
      expect(throttled.headers.get('retry-after')).toBeNull()
      const body = (await throttled.json()) as Record<string, unknown>
      expect(body).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null })
      expect(body.detail).toMatch(
        /^Exceeded maximum concurrency limit: 3 for key: api:query:per-team:1 and task: /,
      )
      expect(emu.state.queryLimiter.stats).toMatchObject({ maxConcurrent: 3, throttled: 1 })
      // Another team has its own slots.
      const mixed = await Promise.all([1, 1, 1, 2].map((p) => run('SELECT count() FROM events', p)))
      expect(mixed.map((r) => r.status)).toEqual([200, 200, 200, 200])
    })
  })

  it('lets a fourth query wait for a free slot, as PostHog retries for up to 30 seconds', async () => {
    await withEmulator({ latencyMs: 150 }, async (emu, run) => {
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => run('SELECT count() FROM events')))
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
      expect(emu.state.queryLimiter.stats.maxConcurrent).toBe(3)
    })
  })

  it('stops a query that reads more rows than the execution budget, unless a time bound narrows it', async () => {
    await withEmulator({ maxRowsScanned: 100 }, async (emu, run) => {
      const all = await run('SELECT count() FROM events')
      expect(all.status).toBe(504)
      expect(await all.json()).toEqual({
        type: 'server_error',
        code: 'error',
        detail:
          'Query has hit the max execution time before completing. See our docs for how to improve your query performance. You may need to materialize.',
        attr: null,
      })
      // A filter on anything but the time key still reads the whole table.
      expect((await run("SELECT count() FROM events WHERE event = '$pageview'")).status).toBe(504)
      const day = await run(
        "SELECT count() FROM events WHERE timestamp >= toDateTime('2024-12-20T00:00:00Z') AND timestamp < '2024-12-21T00:00:00Z'",
      )
      expect(day.status).toBe(200)
      const sessions = await run(
        "SELECT count() FROM sessions WHERE $start_timestamp >= '2024-12-20' AND $start_timestamp < '2024-12-21'",
      )
      expect(sessions.status).toBe(200)
      expect(emu.state.queryLimiter.stats.timedOut).toBe(2)
    })
  })
})

describe('capture', () => {
  it('accepts events with the project API key, making them visible to queries and the events API', async () => {
    const uuid = '01900000-0000-7000-8000-0000000000aa'
    const res = await call(
      'POST',
      '/i/v0/e/',
      {
        api_key: DEFAULT_PROJECT_API_KEY,
        event: 'signed_up',
        distinct_id: 'new_user',
        uuid,
        timestamp: '2024-12-31T12:00:00Z',
        properties: { plan: 'pro', $set: { email: 'new@example.com' } },
      },
      {},
    )
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'Ok' })
    expect((await call('GET', `/api/projects/1/events/${uuid}/`)).body).toMatchObject({
      event: 'signed_up',
      distinct_id: 'new_user',
    })
    expect(await rows(`SELECT event, properties.plan FROM events WHERE uuid = '${uuid}'`)).toEqual([
      ['signed_up', 'pro'],
    ])
    const persons = await call('GET', '/api/projects/1/persons/?distinct_id=new_user')
    // The new person notes the event that created it, as PostHog's ingestion does.
    expect((persons.body.results as { properties: object }[])[0]?.properties).toEqual({
      email: 'new@example.com',
      $creator_event_uuid: uuid,
    })
  })

  it("gives a session the distinct id of its latest event, as the sessions table's argMax does", async () => {
    const session = '01940000-0000-7000-8000-00000000a001'
    const capture = (distinctId: string, timestamp: string, properties: Record<string, unknown> = {}) =>
      call(
        'POST',
        '/i/v0/e/',
        {
          api_key: DEFAULT_PROJECT_API_KEY,
          event: '$pageview',
          distinct_id: distinctId,
          timestamp,
          properties: { $session_id: session, $current_url: 'https://shop.example/', ...properties },
        },
        {},
      )
    // Anonymous first, then identified; a late anonymous event (an earlier timestamp) does not win back.
    expect((await capture('anon-argmax', '2024-12-30T10:00:00Z')).status).toBe(200)
    const identified = await capture('user_argmax', '2024-12-30T10:05:00Z', {
      $anon_distinct_id: 'anon-argmax',
    })
    expect(identified.status).toBe(200)
    expect((await capture('anon-argmax', '2024-12-30T09:58:00Z')).status).toBe(200)
    expect(await rows(`SELECT distinct_id FROM sessions WHERE session_id = '${session}'`)).toEqual([
      ['user_argmax'],
    ])
  })

  it('merges an anonymous person into the identified one on $identify, and resolves its events to it', async () => {
    const capture = (event: string, distinctId: string, timestamp: string, properties = {}) =>
      call(
        'POST',
        '/i/v0/e/',
        { api_key: DEFAULT_PROJECT_API_KEY, event, distinct_id: distinctId, timestamp, properties },
        {},
      )
    // Two persons: one anonymous (browsing first), one already known under the user's id.
    await capture('$pageview', 'anon-merge', '2024-12-20T10:00:00Z', { $set: { plan: 'free', seen: 1 } })
    await capture('$pageview', 'user_merge', '2024-12-21T10:00:00Z', { $set: { plan: 'pro' } })
    const before = await call('GET', '/api/projects/1/persons/?distinct_id=user_merge')
    const target = (before.body.results as { uuid: string }[])[0]!
    await capture('$identify', 'user_merge', '2024-12-22T10:00:00Z', { $anon_distinct_id: 'anon-merge' })

    const after = await call('GET', '/api/projects/1/persons/?distinct_id=anon-merge')
    const merged = (after.body.results as Record<string, unknown>[])[0]!
    expect(merged.uuid).toBe(target.uuid)
    expect(merged.is_identified).toBe(true)
    expect(merged.created_at).toMatch(/^2024-12-20T10:00:00/)
    expect(merged.properties).toMatchObject({ plan: 'pro', seen: 1 })
    expect([...(merged.distinct_ids as string[])].sort()).toEqual(['anon-merge', 'user_merge'])
    expect(
      await rows(`SELECT distinct_id, person_id FROM events WHERE distinct_id IN ('anon-merge', 'user_merge')
        ORDER BY timestamp`),
    ).toEqual([
      ['anon-merge', target.uuid],
      ['user_merge', target.uuid],
      ['user_merge', target.uuid],
    ])
    expect(await rows(`SELECT person_id FROM person_distinct_ids WHERE distinct_id = 'anon-merge'`)).toEqual([
      [target.uuid],
    ])
  })

  it('stamps person-less events with the uuid derived from their distinct id, creating no person', async () => {
    const capture = (distinctId: string, properties: Record<string, unknown>) =>
      call(
        'POST',
        '/i/v0/e/',
        { api_key: DEFAULT_PROJECT_API_KEY, event: 'ping', distinct_id: distinctId, properties },
        {},
      )
    await capture('personless-1', { $process_person_profile: false })
    const persons = await call('GET', '/api/projects/1/persons/?distinct_id=personless-1')
    expect(persons.body.results).toEqual([])
    // PostHog's own expectation for team 1 and distinct id 'test' is 246f7a43-…; this one is derived alike.
    const [[personId]] = (await rows("SELECT person_id FROM events WHERE distinct_id = 'personless-1'")) as [
      [string],
    ]
    expect(personId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab]/)
    await capture('test', { $process_person_profile: false })
    expect(await rows("SELECT person_id FROM events WHERE distinct_id = 'test'")).toEqual([
      ['246f7a43-5507-564f-b687-793ee3c2dd79'],
    ])
    // Once the distinct id has a person, its events are that person's.
    await capture('personless-1', {})
    const [created] = (await call('GET', '/api/projects/1/persons/?distinct_id=personless-1')).body
      .results as { uuid: string }[]
    expect(created?.uuid).toBe(personId)
  })

  it('without persons-on-events, leaves person-less events out of any query that reads person_id', async () => {
    const team = emulator.state.projects.get(1)!.project
    await call(
      'POST',
      '/i/v0/e/',
      {
        api_key: DEFAULT_PROJECT_API_KEY,
        event: 'ping',
        distinct_id: 'personless-2',
        properties: { $process_person_profile: false },
      },
      {},
    )
    const where = "WHERE distinct_id = 'personless-2'"
    team.personsOnEventsMode = 'disabled'
    try {
      // HogQL INNER JOINs person_distinct_ids for events.person_id: no person, no row.
      expect(await rows(`SELECT event, person_id FROM events ${where}`)).toEqual([])
      expect(await rows(`SELECT person_id, count() FROM events ${where} GROUP BY person_id`)).toEqual([])
      expect(await rows(`SELECT event, distinct_id FROM events ${where}`)).toEqual([['ping', 'personless-2']])
    } finally {
      team.personsOnEventsMode = 'person_id_override_properties_joined'
    }
    const [[stamped]] = (await rows(`SELECT person_id FROM events ${where}`)) as [[string]]
    expect(stamped).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5/)
  })

  it('refuses to merge a person that is already identified, and illegal distinct ids', async () => {
    const capture = (event: string, distinctId: string, properties = {}) =>
      call(
        'POST',
        '/i/v0/e/',
        { api_key: DEFAULT_PROJECT_API_KEY, event, distinct_id: distinctId, properties },
        {},
      )
    await capture('$identify', 'user_a', { $anon_distinct_id: 'anon-a' })
    await capture('$identify', 'user_b', { $anon_distinct_id: 'anon-b' })
    await capture('$create_alias', 'user_b', { alias: 'user_a' })
    await capture('$identify', 'null', { $anon_distinct_id: 'anon-c' })
    const uuidOf = async (d: string) =>
      ((await call('GET', `/api/projects/1/persons/?distinct_id=${d}`)).body.results as { uuid: string }[])[0]
        ?.uuid
    expect(await uuidOf('anon-a')).toBe(await uuidOf('user_a'))
    expect(await uuidOf('user_a')).not.toBe(await uuidOf('user_b'))
    expect(await uuidOf('anon-c')).toBeUndefined()
  })

  it("breaks events down by their session's entry campaign through the session lazy join", async () => {
    const session = '01940000-0000-7000-8000-00000000b001'
    const capture = (timestamp: string, properties: Record<string, unknown>) =>
      call(
        'POST',
        '/i/v0/e/',
        {
          api_key: DEFAULT_PROJECT_API_KEY,
          event: '$pageview',
          distinct_id: 'join-user',
          timestamp,
          properties: { $session_id: session, $current_url: 'https://shop.example/', ...properties },
        },
        {},
      )
    await capture('2024-12-29T10:00:00Z', { utm_source: 'newsletter', utm_medium: 'email' })
    await capture('2024-12-29T10:01:00Z', {})
    expect(
      await rows(`SELECT properties.utm_source, session.$entry_utm_source, session.$entry_utm_medium
        FROM events WHERE properties.$session_id = '${session}' ORDER BY timestamp`),
    ).toEqual([
      ['newsletter', 'newsletter', 'email'],
      [null, 'newsletter', 'email'],
    ])
  })

  it('takes entry values from page views first and each campaign field from the first event that has it', async () => {
    const session = '01940000-0000-7000-8000-00000000b002'
    const capture = (event: string, timestamp: string, properties: Record<string, unknown>) =>
      call(
        'POST',
        '/i/v0/e/',
        {
          api_key: DEFAULT_PROJECT_API_KEY,
          event,
          distinct_id: 'entry-user',
          timestamp,
          properties: { $session_id: session, ...properties },
        },
        {},
      )
    // An autocapture before the first page view, a landing page without UTM, then one with it, then a click.
    await capture('$autocapture', '2024-12-29T11:00:00Z', {
      $current_url: 'https://shop.example/banner',
      utm_medium: 'click',
    })
    await capture('$pageview', '2024-12-29T11:00:05Z', {
      $current_url: 'https://shop.example/landing',
      $referring_domain: 'www.google.com',
    })
    await capture('$pageview', '2024-12-29T11:01:00Z', {
      $current_url: 'https://shop.example/offer',
      utm_source: 'newsletter',
    })
    await capture('$autocapture', '2024-12-29T11:02:00Z', { $current_url: 'https://shop.example/buy' })
    expect(
      await rows(`SELECT $entry_current_url, $end_current_url, $entry_referring_domain, $entry_utm_source,
        $entry_utm_medium FROM sessions WHERE session_id = '${session}'`),
    ).toEqual([
      ['https://shop.example/landing', 'https://shop.example/offer', 'www.google.com', 'newsletter', 'click'],
    ])
  })

  it("pages persons created at the same instant by uuid descending, as PostHog's ClickHouse query does", async () => {
    // Newer than every other person (some are created now), but within the day ahead lists still show.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 12 * 3600_000).toISOString()
    const ids = ['tie_a', 'tie_b', 'tie_c']
    for (const d of [...ids, 'future_person']) {
      const timestamp = d === 'future_person' ? new Date(Date.now() + 2 * 86_400_000).toISOString() : at
      await call(
        'POST',
        '/i/v0/e/',
        { api_key: DEFAULT_PROJECT_API_KEY, event: 'x', distinct_id: d, timestamp },
        {},
      )
    }
    const uuids = await Promise.all(
      ids.map(async (d) => {
        const res = await call('GET', `/api/projects/1/persons/?distinct_id=${d}`)
        return (res.body.results as { uuid: string }[])[0]!.uuid
      }),
    )
    const desc = [...uuids].sort().reverse()
    const first = (await call('GET', '/api/projects/1/persons/?limit=2')).body.results as { uuid: string }[]
    const second = (await call('GET', '/api/projects/1/persons/?limit=2&offset=2')).body.results as {
      uuid: string
    }[]
    // The first page holds the two greatest uuids (listed ascending), the second the third one.
    expect(first.map((p) => p.uuid)).toEqual(desc.slice(0, 2).reverse())
    expect(second[0]?.uuid).toBe(desc[2])
    // A person created more than a day ahead is not listed.
    const future = await call('GET', '/api/projects/1/persons/?distinct_id=future_person')
    expect(future.body.results).toEqual([])
  })

  it('silently drops events without a name or distinct id', async () => {
    const before = await rows('SELECT count() FROM events')
    const res = await call(
      'POST',
      '/batch/',
      { api_key: DEFAULT_PROJECT_API_KEY, batch: [{ event: 'x' }, { distinct_id: 'y' }] },
      {},
    )
    expect(res.status).toBe(200)
    expect(await rows('SELECT count() FROM events')).toEqual(before)
  })

  it('refuses a wrong project API key', async () => {
    const res = await call('POST', '/capture/', { api_key: 'phc_wrong', event: 'x', distinct_id: 'y' }, {})
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' })
  })
})

/**
 * PostHog's API routers (`DefaultRouterPlusPlus`, posthog/api/routing.py) set DRF's `trailing_slash` to `/?`,
 * so a slashless `/api/…` path is served as is, not redirected by APPEND_SLASH; the capture service takes
 * both forms too. `redirect: 'manual'` makes a 301 visible instead of silently followed.
 */
describe('environments', () => {
  let ph: PosthogEmulator
  const call2 = (method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) =>
    call(method, `${ph.url}${path}`, body, headers)
  beforeAll(async () => {
    ph = await startPosthogEmulator({ seed: 3, size: { projects: 1, events: 30, sessions: 5, persons: 3 } })
  })
  afterAll(async () => ph.close())

  it('keeps an environment apart from its project: own id, key and data; project routes read the first team', async () => {
    const env = ph.state.createEnvironment(1, { name: 'Staging' })
    ph.state.currentTeamId = env.project.id
    const me = (await call2('GET', '/api/users/@me/')).body as {
      team: { id: number; project_id: number; api_token: string }
      organization: { teams: { id: number; project_id: number }[]; projects: { id: number }[] }
    }
    expect(me.team).toMatchObject({ id: env.project.id, project_id: 1, api_token: env.project.apiToken })
    expect(me.organization.teams.map((t) => [t.id, t.project_id])).toEqual([
      [1, 1],
      [env.project.id, 1],
    ])
    expect(me.organization.projects.map((p) => p.id)).toEqual([1])
    // The project API shows the first team (its key), and lists no environment as a project.
    expect((await call2('GET', '/api/projects/1/')).body.api_token).toBe(DEFAULT_PROJECT_API_KEY)
    expect((await call2('GET', `/api/projects/${env.project.id}/`)).status).toBe(404)
    expect(
      ((await call2('GET', '/api/projects/')).body.results as { id: number }[]).map((p) => p.id),
    ).toEqual([1])
    // Capture with the environment's key: the person's uuid derives from the environment's team id, and only
    // the environment's routes see it.
    await call2(
      'POST',
      '/i/v0/e/',
      { api_key: env.project.apiToken, event: 'ping', distinct_id: 'test', properties: {} },
      {},
    )
    const inEnv = await call2('GET', `/api/environments/${env.project.id}/persons/?distinct_id=test`)
    const uuid = (inEnv.body.results as { uuid: string }[])[0]?.uuid
    expect(uuid).not.toBe('246f7a43-5507-564f-b687-793ee3c2dd79') // team 1's uuid for 'test'
    expect(ph.state.projects.get(env.project.id)?.persons.withDistinctId('test')?.uuid).toBe(uuid)
    expect((await call2('GET', '/api/projects/1/persons/?distinct_id=test')).body.results).toEqual([])
    // `@current` is the current team under /api/environments/, its project's first team under /api/projects/.
    expect(
      (await call2('GET', '/api/environments/@current/persons/?distinct_id=test')).body.results,
    ).toHaveLength(1)
    expect((await call2('GET', '/api/projects/@current/persons/?distinct_id=test')).body.results).toEqual([])
  })
})

describe('trailing slashes', () => {
  async function raw(method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) {
    return fetch(`${emulator.url}${path}`, {
      method,
      redirect: 'manual',
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  }

  it('serves a slashless GET on the API like the slash form, without a redirect', async () => {
    const [slashless, slashed] = [
      await raw('GET', '/api/users/@me?x=1'),
      await raw('GET', '/api/users/@me/?x=1'),
    ]
    expect(slashless.status).toBe(200)
    expect(slashless.headers.get('location')).toBeNull()
    expect(await slashless.json()).toEqual(await slashed.json())
  })

  it('serves a slashless POST on the API with its body, without a redirect', async () => {
    const body = { query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events' } }
    const slashless = await raw('POST', '/api/projects/1/query', body)
    expect(slashless.status).toBe(200)
    const slashed = await raw('POST', '/api/projects/1/query/', body)
    expect(((await slashless.json()) as { results: unknown }).results).toEqual(
      ((await slashed.json()) as { results: unknown }).results,
    )
  })

  it('captures on both forms of the capture paths', async () => {
    for (const path of ['/i/v0/e', '/i/v0/e/', '/batch', '/batch/']) {
      const res = await raw(
        'POST',
        path,
        { api_key: DEFAULT_PROJECT_API_KEY, event: 'slash_check', distinct_id: 'slash_user' },
        {},
      )
      expect(res.status, path).toBe(200)
      expect(await res.json()).toEqual({ status: 'Ok' })
    }
    expect(await rows(`SELECT count() FROM events WHERE event = 'slash_check'`)).toEqual([[4]])
  })
})

describe('faults', () => {
  it('answers an injected 429 with PostHog throttle body and Retry-After, then recovers', async () => {
    emulator.fault({ status: 429, headers: { 'retry-after': '7' }, pathPattern: '/persons/' })
    const throttled = await call('GET', '/api/projects/1/persons/')
    expect(throttled.status).toBe(429)
    expect(throttled.headers.get('retry-after')).toBe('7')
    expect(throttled.body).toEqual({
      type: 'throttled_error',
      code: 'throttled',
      detail: 'Request was throttled. Expected available in 7 seconds.',
      attr: null,
    })
    expect((await call('GET', '/api/projects/1/persons/')).status).toBe(200)
  })

  it('injects server errors through the HTTP control endpoint and records requests', async () => {
    emulator.clearRequests()
    await call('POST', '/__emulator/faults', { status: 500, times: 2 }, {})
    expect((await call('GET', '/api/users/@me/')).status).toBe(500)
    expect((await call('GET', '/api/users/@me/')).body).toMatchObject({ type: 'server_error' })
    expect((await call('GET', '/api/users/@me/')).status).toBe(200)
    const recorded = emulator.requests()
    expect(recorded.map((r) => r.path)).toEqual(['/api/users/@me/', '/api/users/@me/', '/api/users/@me/'])
    expect(recorded[0]?.headers.authorization).toBe(AUTH.authorization)
  })
})

describe('determinism', () => {
  it('holds the same data for the same seed and different data for another', async () => {
    const twin = await startPosthogEmulator({ seed: 42, size: { events: 600, sessions: 80, persons: 30 } })
    const other = await startPosthogEmulator({ seed: 43, size: { events: 600, sessions: 80, persons: 30 } })
    try {
      const query =
        'SELECT uuid, event, distinct_id, timestamp, properties FROM events ORDER BY timestamp LIMIT 50'
      const body = (em: PosthogEmulator) =>
        fetch(`${em.url}/api/projects/1/query/`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({ query: { kind: 'HogQLQuery', query } }),
        }).then(async (r) => ((await r.json()) as { results: unknown }).results)
      expect(await body(twin)).toEqual(await body(emulator))
      expect(await body(other)).not.toEqual(await body(emulator))
    } finally {
      await Promise.all([twin.close(), other.close()])
    }
  })
})

describe('dates before the year 100', () => {
  it('reads a date of the years 0 to 99 as that year, not as 1900 to 1999', async () => {
    expect(
      await rows("SELECT toDateTime('0050-03-01 12:00:00'), toDate('0050-03-01') FROM events LIMIT 1"),
    ).toEqual([['0050-03-01T12:00:00.000000Z', '0050-03-01']])
  })
})
