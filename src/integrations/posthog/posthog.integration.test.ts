import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_PERSONAL_API_KEY,
  DEFAULT_PROJECT_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../../../emulators/posthog/index.js'
import { ApiError, ProviderError, ProviderTimeoutError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { ProviderTransport } from '../../outbound/index.js'
import { memoryCursors } from '../cursors.js'
import { ProviderClient } from '../http-client.js'
import type {
  ConnectionSettings,
  Credentials,
  FieldPlan,
  HandlerContext,
  ListQuery,
  ObjectHandlers,
} from '../types.js'
import definition from './definition.js'

let emulator: PosthogEmulator
let credentials: Credentials
let client: ProviderClient
let settings: ConnectionSettings

/** The seeded data ends at today's UTC midnight, so lists without a start (the last 30 days) see it. */
const UNTIL = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000)
const daysBefore = (days: number) => new Date(UNTIL.getTime() - days * 86_400_000)

/** Every client of this file shares one transport, allowed to reach the emulators on loopback. */
const transport = new ProviderTransport({
  allowAddresses: ['loopback'],
  timeoutMs: 5000,
  maxBodyBytes: 32 * 1024 * 1024,
  answerDeadlineMs: 60_000,
  operationDeadlineMs: 600_000,
  connectionConcurrency: 8,
  connectionQueue: 64,
  workspaceConcurrency: 256,
  workspaceQueue: 1024,
  heapShedPercent: 75,
})
beforeAll(async () => {
  emulator = await startPosthogEmulator({
    seed: 7,
    size: { events: 900, sessions: 120, persons: 40 },
    until: UNTIL.toISOString(),
  })
  credentials = { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url }
  client = new ProviderClient({
    baseUrl: definition.baseUrl(credentials),
    authHeaders: definition.authHeaders(credentials),
    retry: definition.retry,
    timeoutMs: 5000,
    maxRetries: 2,
    maxRetryWaitMs: 3000,
    transport,
  })
  settings = await definition.verify(client, credentials)
})
afterAll(async () => emulator?.close())
beforeEach(() => {
  emulator.clearRequests()
  emulator.clearFaults()
})

function ctx(fields: Partial<FieldPlan> = {}, rawParams: Record<string, string> = {}): HandlerContext {
  return {
    client,
    credentials,
    settings,
    connectionId: 'conn_test',
    fields: { raw: false, rawNames: [], slow: new Set(), ...fields },
    rawParams,
    cursors: memoryCursors(),
  }
}

function list(partial: Partial<ListQuery> = {}): ListQuery {
  return { limit: 100, offset: 0, filters: {}, ...partial }
}

const handlers = (object: string) => definition.objects[object] as Required<ObjectHandlers>

/** The HogQL texts that reached the emulator since the last reset. */
function sentQueries(): string[] {
  return emulator
    .requests()
    .filter((r) => r.path.endsWith('/query/'))
    .map((r) => (r.body as { query: { query: string } }).query.query)
}

/** The same, without the per-page `person_distinct_ids` lookups that resolve visitor ids. */
function sentListQueries(): string[] {
  return sentQueries().filter((q) => !q.includes('FROM person_distinct_ids'))
}

async function directQuery(query: string): Promise<unknown[][]> {
  const res = await fetch(`${emulator.url}/api/projects/1/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: { kind: 'HogQLQuery', query } }),
  })
  return ((await res.json()) as { results: unknown[][] }).results
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (err) {
    return err
  }
  throw new Error('expected a failure')
}

describe('verify', () => {
  it('reads the organization, the project and its project API key from @me', () => {
    expect(settings).toEqual({
      organization_id: emulator.state.organization.id,
      project_id: '1',
      project_api_key: DEFAULT_PROJECT_API_KEY,
      team_id: '1',
    })
  })

  it('authenticates with the personal key as a Bearer token', async () => {
    await definition.verify(client, credentials)
    expect(emulator.requests()[0]).toMatchObject({
      method: 'GET',
      path: '/api/users/@me/',
      headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}` },
    })
  })
})

describe('analytics_property (projects)', () => {
  it('pages the organization projects with limit/offset and searches with query', async () => {
    const first = await handlers('analytics_property').list(ctx(), list({ limit: 1 }))
    const second = await handlers('analytics_property').list(ctx(), list({ limit: 1, offset: 1 }))
    expect([first[0]?.id, second[0]?.id]).toEqual(['1', '2'])
    expect(first[0]).toMatchObject({
      name: 'Example Shop',
      timezone: 'UTC',
      parent_id: settings.organization_id,
    })
    expect(first[0]?.created_at).toBeUndefined()
    const found = await handlers('analytics_property').list(ctx(), list({ query: 'shop 2' }))
    expect(found.map((p) => p.id)).toEqual(['2'])
    const paths = emulator.requests().map((r) => [r.path, r.query])
    expect(paths[1]).toEqual([
      `/api/organizations/${settings.organization_id}/projects/`,
      { limit: '1', offset: '1' },
    ])
    expect(paths[2]?.[1]).toMatchObject({ search: 'shop 2' })
  })

  it('reads each project detail only when a detail-only (slow) field is asked for', async () => {
    const [p] = await handlers('analytics_property').list(
      ctx({ slow: new Set(['created_at']) }),
      list({ limit: 1 }),
    )
    expect(p?.created_at).toBeInstanceOf(Date)
    expect(p?.currency).toBe('USD')
    expect(emulator.requests().map((r) => r.path)).toEqual([
      `/api/organizations/${settings.organization_id}/projects/`,
      '/api/projects/1/',
    ])
  })

  it('creates, reads, patches, updates and removes a project', async () => {
    const h = handlers('analytics_property')
    const created = await h.create(ctx(), { name: 'Docs', timezone: 'Europe/Paris', currency: 'EUR' })
    expect(created).toMatchObject({ name: 'Docs', timezone: 'Europe/Paris', currency: 'EUR' })
    const id = created.id as string
    expect((await h.get(ctx(), id)).name).toBe('Docs')
    expect(await h.patch(ctx(), id, { name: 'Docs site' })).toMatchObject({
      name: 'Docs site',
      timezone: 'Europe/Paris',
    })
    expect(await h.update(ctx(), id, { name: 'Docs', timezone: 'UTC' })).toMatchObject({
      name: 'Docs',
      timezone: 'UTC',
    })
    await h.remove(ctx(), id)
    const err = await failure(h.get(ctx(), id))
    expect(err).toBeInstanceOf(ProviderError)
    expect((err as ProviderError).status).toBe(404)
    expect(emulator.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /api/organizations/${settings.organization_id}/projects/`,
      `GET /api/projects/${id}/`,
      `PATCH /api/projects/${id}/`,
      `PUT /api/projects/${id}/`,
      `DELETE /api/projects/${id}/`,
      `GET /api/projects/${id}/`,
    ])
  })

  it('passes PostHog validation errors on as 400s', async () => {
    const err = await failure(
      handlers('analytics_property').create(ctx(), { name: 'X', timezone: 'Mars/Base' }),
    )
    expect((err as ProviderError).status).toBe(400)
    expect((err as ProviderError).providerMessage).toBe('"Mars/Base" is not a valid choice.')
  })
})

/** An event time as handlers give it: ISO text (HogQL's timestamps) or a Date (other forms). */
const timeOf = (v: unknown) => new Date(v as string | Date).getTime()

describe('analytics_event', () => {
  it('pages newest first with LIMIT/OFFSET, pages fitting together', async () => {
    const h = handlers('analytics_event')
    const both = await h.list(ctx(), list({ limit: 10 }))
    const first = await h.list(ctx(), list({ limit: 5 }))
    const second = await h.list(ctx(), list({ limit: 5, offset: 5 }))
    expect([...first, ...second].map((e) => e.id)).toEqual(both.map((e) => e.id))
    const times = both.map((e) => timeOf(e.created_at))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    expect(sentListQueries()[2]).toMatch(/ORDER BY timestamp DESC, uuid DESC\nLIMIT 5 OFFSET 5$/)
    expect(both[0]).toMatchObject({
      property_id: '1',
      name: expect.any(String),
      event_type: expect.any(String),
    })
  })

  it('pushes visitor, session, type, date and text filters into HogQL', async () => {
    const h = handlers('analytics_event')
    const [sample] = await h.list(ctx(), list({ limit: 1, filters: { type: 'PAGE_VIEW' } }))
    const visitor = sample?.visitor_id as string
    const session = sample?.session_id as string
    const byVisitor = await h.list(ctx(), list({ filters: { visitor_id: visitor } }))
    expect(byVisitor.length).toBeGreaterThan(0)
    expect(byVisitor.every((e) => e.visitor_id === visitor)).toBe(true)
    const bySession = await h.list(ctx(), list({ filters: { session_id: session, type: 'PAGE_VIEW' } }))
    expect(bySession.every((e) => e.session_id === session && e.event_type === 'PAGE_VIEW')).toBe(true)
    const clicks = await h.list(ctx(), list({ limit: 20, filters: { type: 'CLICK,FORM_SUBMIT' } }))
    expect(new Set(clicks.map((e) => e.event_type))).toEqual(new Set(['CLICK', 'FORM_SUBMIT']))
    const start = daysBefore(10)
    const end = daysBefore(9)
    const day = await h.list(ctx(), list({ filters: { start_gte: start, end_lt: end } }))
    expect(day.length).toBeGreaterThan(0)
    expect(
      day.every((e) => timeOf(e.created_at) >= start.getTime() && timeOf(e.created_at) < end.getTime()),
    ).toBe(true)
    // HogQL's timestamps come back as the ISO text the response writes (isoTextOf), not re-parsed.
    expect(day[0]?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const pricing = await h.list(ctx(), list({ query: 'pricing' }))
    expect(pricing.length).toBeGreaterThan(0)
    expect(pricing.every((e) => String(e.page_url).includes('pricing'))).toBe(true)
    const sent = sentListQueries()
    expect(sent[1]).toContain(`AND person_id = '${visitor}'`)
    // No list is a scan of all time: without start_gte it covers the last 30 days.
    expect(sent[1]).toMatch(/WHERE timestamp >= toDateTime\('[^']+'\) AND person_id/)
    expect(sent[2]).toContain(`properties.$session_id = '${session}'`)
    expect(sent[4]).toContain(
      `WHERE timestamp >= toDateTime('${start.toISOString()}') AND timestamp < toDateTime('${end.toISOString()}')`,
    )
  })

  it('counts every event of a type, matching a direct count', async () => {
    const purchases = await handlers('analytics_event').list(
      ctx(),
      list({ limit: 1000, filters: { type: 'PURCHASE' } }),
    )
    const [[count]] = (await directQuery("SELECT count() FROM events WHERE event = 'purchase'")) as [[number]]
    expect(purchases).toHaveLength(count)
    expect(purchases.every((e) => typeof e.value === 'number' && e.currency === 'USD')).toBe(true)
  })

  it('sorts by name when asked', async () => {
    const named = await handlers('analytics_event').list(ctx(), list({ limit: 50, sort: 'name' }))
    const names = named.map((e) => e.name as string)
    expect(names).toEqual([...names].sort())
  })

  it('selects the properties blob only for raw or metadata, and raw.<name> as one property', async () => {
    const h = handlers('analytics_event')
    const lean = await h.list(ctx({ rawNames: ['$lib', 'elements_chain'] }), list({ limit: 3 }))
    const [leanQuery] = sentQueries()
    expect(leanQuery).toContain('properties.$lib')
    expect(leanQuery).toContain('elements_chain')
    expect(leanQuery?.split('\n')[0]).not.toMatch(/, properties(,|$)/)
    expect(lean[0]?.raw).toMatchObject({ $lib: expect.any(String), elements_chain: expect.any(String) })
    expect(lean[0]?.metadata).toBeUndefined()

    emulator.clearRequests()
    const full = await h.list(
      ctx({ raw: true, slow: new Set(['metadata']) }),
      list({ limit: 50, filters: { type: 'PURCHASE' } }),
    )
    expect(sentQueries()[0]?.split('\n')[0]).toMatch(/, properties$/)
    expect(full[0]?.raw).toMatchObject({
      properties: { $lib: expect.any(String), revenue: expect.any(Number) },
    })
    expect(full[0]?.metadata).toMatchObject({ product: { value: expect.any(String) } })
  })

  it('gets one event by uuid, and answers 404 for unknown or malformed ids', async () => {
    const h = handlers('analytics_event')
    const [listed] = await h.list(ctx(), list({ limit: 1 }))
    const got = await h.get(ctx({ rawNames: ['$lib'] }), listed?.id as string)
    expect(got).toMatchObject({
      id: listed?.id,
      name: listed?.name,
      visitor_id: listed?.visitor_id,
      page_url: listed?.page_url,
    })
    expect(got.raw).toMatchObject({ $lib: expect.any(String) })
    expect(emulator.requests().map((r) => r.path)).toContain(`/api/projects/1/events/${listed?.id}/`)
    const unknown = await failure(h.get(ctx(), '0190a000-0000-7000-8000-000000000000'))
    expect((unknown as ProviderError).status).toBe(404)
    const malformed = await failure(h.get(ctx(), 'not-a-uuid'))
    expect(malformed).toBeInstanceOf(ApiError)
    expect((malformed as ApiError).statusCode).toBe(404)
  })

  it('creates an event through capture under a uuid of ours, readable right after', async () => {
    const h = handlers('analytics_event')
    const created = await h.create(ctx(), {
      event_type: 'SIGN_UP',
      visitor_id: 'user_3',
      page_url: 'https://shop.example.com/signup',
      metadata: { plan: { value: 'pro' } },
      raw: { timestamp: '2024-12-31T12:00:00.000Z' },
    })
    // The visitor id given is a distinct id; the event is the person's, under the person's id.
    const person = emulator.state.projects.get(1)!.persons.withDistinctId('user_3')!
    expect(created).toMatchObject({
      name: 'sign_up',
      event_type: 'SIGN_UP',
      visitor_id: person.uuid,
      property_id: '1',
    })
    const capture = emulator.requests().find((r) => r.path === '/i/v0/e/')
    expect(capture?.body).toMatchObject({
      api_key: DEFAULT_PROJECT_API_KEY,
      event: 'sign_up',
      distinct_id: 'user_3',
      uuid: created.id,
      properties: { $current_url: 'https://shop.example.com/signup', plan: 'pro' },
    })
    const read = await h.get(ctx(), created.id as string)
    expect(read).toMatchObject({
      id: created.id,
      visitor_id: person.uuid,
      event_type: 'SIGN_UP',
      metadata: { plan: { value: 'pro' } },
    })
    expect((read.created_at as Date).toISOString()).toBe('2024-12-31T12:00:00.000Z')
  })

  it('lists an event created a moment ago: queries ask PostHog for fresh results, not its cache', async () => {
    const h = handlers('analytics_event')
    const filters = { visitor_id: 'fresh_probe' }
    expect(await h.list(ctx(), list({ filters }))).toEqual([])
    const created = await h.create(ctx(), { name: 'probe', visitor_id: 'fresh_probe' })
    const after = await h.list(ctx(), list({ filters }))
    expect(after.map((e) => e.id)).toEqual([created.id])
    const bodies = emulator
      .requests()
      .filter((r) => r.path.endsWith('/query/'))
      .map((r) => r.body as { refresh?: string })
    expect(bodies.every((b) => b.refresh === 'force_blocking')).toBe(true)
    // A caller may choose the cache with raw=refresh=blocking.
    await h.list(ctx({}, { refresh: 'blocking' }), list({ filters }))
    expect((emulator.requests().at(-1)!.body as { refresh?: string }).refresh).toBe('blocking')
  })

  it('refuses an event without a visitor, which PostHog would drop silently', async () => {
    const err = await failure(handlers('analytics_event').create(ctx(), { event_type: 'PAGE_VIEW' }))
    expect((err as ApiError).statusCode).toBe(400)
    expect(emulator.requests()).toEqual([])
  })

  it('retries a 429 after the Retry-After PostHog sent, then succeeds', async () => {
    emulator.fault({ status: 429, times: 1, headers: { 'retry-after': '1' }, pathPattern: '/query/$' })
    const started = Date.now()
    const events = await handlers('analytics_event').list(ctx(), list({ limit: 2 }))
    expect(events).toHaveLength(2)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    expect(sentListQueries()).toHaveLength(2)
  })

  it('passes a 429 on when PostHog asks to wait longer than the client may', async () => {
    emulator.fault({ status: 429, times: 3, headers: { 'retry-after': '60' }, pathPattern: '/query/$' })
    const err = await failure(handlers('analytics_event').list(ctx(), list({ limit: 2 })))
    expect(err).toMatchObject({ status: 429, retryAfterSeconds: 60 })
  })

  it('gives up on a query slower than the client timeout', async () => {
    const impatient = new ProviderClient({ ...client.options, timeoutMs: 200, maxRetries: 0 })
    emulator.fault({ delayMs: 2000, pathPattern: '/query/$' })
    const err = await failure(
      handlers('analytics_event').list({ ...ctx(), client: impatient }, list({ limit: 1 })),
    )
    expect(err).toBeInstanceOf(ProviderTimeoutError)
  })

  it('adds raw parameters as top-level keys of the query body', async () => {
    await handlers('analytics_event').list(ctx({}, { refresh: 'force_blocking' }), list({ limit: 1 }))
    expect(emulator.requests()[0]?.body).toMatchObject({
      refresh: 'force_blocking',
      query: { kind: 'HogQLQuery' },
    })
  })
})

describe('analytics_session', () => {
  it('lists sessions newest first, paged and filtered by visitor, source and medium', async () => {
    const h = handlers('analytics_session')
    const both = await h.list(ctx(), list({ limit: 6 }))
    const second = await h.list(ctx(), list({ limit: 3, offset: 3 }))
    expect(second.map((s) => s.id)).toEqual(both.slice(3).map((s) => s.id))
    const starts = both.map((s) => (s.start_at as Date).getTime())
    expect([...starts].sort((a, b) => b - a)).toEqual(starts)
    const visitor = both[0]?.visitor_id as string
    const mine = await h.list(ctx(), list({ filters: { visitor_id: visitor } }))
    expect(mine.length).toBeGreaterThan(0)
    expect(mine.every((s) => s.visitor_id === visitor)).toBe(true)
    const email = await h.list(ctx(), list({ filters: { medium: 'email', source: 'newsletter' } }))
    expect(email.length).toBeGreaterThan(0)
    expect(email.every((s) => s.medium === 'email' && s.source === 'newsletter')).toBe(true)
    const google = await h.list(ctx(), list({ filters: { source: 'www.google.com' } }))
    expect(google.every((s) => s.source === 'www.google.com')).toBe(true)
  })

  it('fetches device, browser, OS, place and event counts in one extra query per page, only when asked', async () => {
    const h = handlers('analytics_session')
    // Without visitor_id, the page is one query; with it, one more names the sessions' persons.
    const plain = await h.list(ctx({ listed: new Set(['id', 'start_at']) }), list({ limit: 5 }))
    expect(plain[0]?.browser).toBeUndefined()
    expect(sentQueries()).toHaveLength(1)
    emulator.clearRequests()
    const slow = new Set(['device', 'browser', 'os', 'country', 'city', 'events_count'])
    const detailed = await h.list(ctx({ slow }), list({ limit: 5 }))
    expect(sentQueries()).toHaveLength(3)
    expect(sentQueries().filter((q) => /GROUP BY properties\.\$session_id/.test(q))).toHaveLength(1)
    expect(sentQueries().filter((q) => /FROM person_distinct_ids/.test(q))).toHaveLength(1)
    const data = emulator.state.projects.get(1)!
    for (const s of detailed) {
      const seeded = data.sessions.get(s.id as string)!
      expect(s).toMatchObject({
        device: seeded.profile?.device.deviceType,
        os: seeded.profile?.device.os,
        city: seeded.profile?.geo.city,
      })
      const [[count]] = (await directQuery(
        `SELECT count() FROM events WHERE properties.$session_id = '${s.id}'`,
      )) as [[number]]
      expect(s.events_count).toBe(count)
    }
  })

  it('gets one session, with a raw.<name> column, and 404 for an unknown id', async () => {
    const h = handlers('analytics_session')
    const [listed] = await h.list(ctx(), list({ limit: 1 }))
    const got = await h.get(ctx({ rawNames: ['$entry_pathname'] }), listed?.id as string)
    expect(got).toMatchObject({ id: listed?.id, start_at: listed?.start_at, page_views: listed?.page_views })
    expect(got.raw).toHaveProperty('$entry_pathname')
    expect(((await failure(h.get(ctx(), 'nope'))) as ProviderError).status).toBe(404)
  })

  it('answers a raw.<name> the sessions table lacks as a 400 naming fields', async () => {
    const err = await failure(
      handlers('analytics_session').list(ctx({ rawNames: ['nope'] }), list({ limit: 1 })),
    )
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).statusCode).toBe(400)
    expect((err as Error).message).toBe(
      "fields: raw.nope: PostHog's sessions table has no column 'nope' (PostHog: Unable to resolve field: nope)",
    )
  })
})

describe('analytics_visitor', () => {
  it("lists persons paged, with the person's uuid as visitor id", async () => {
    const h = handlers('analytics_visitor')
    const both = await h.list(ctx(), list({ limit: 4 }))
    const second = await h.list(ctx(), list({ limit: 2, offset: 2 }))
    expect(second.map((v) => v.id)).toEqual(both.slice(2).map((v) => v.id))
    const persons = emulator.state.projects.get(1)!.persons
    expect(both.every((v) => persons.withIdOrUuid(v.id as string)?.uuid === v.id)).toBe(true)
    expect(emulator.requests()[1]?.query).toMatchObject({ limit: '2', offset: '2' })
  })

  it("finds every event and session of a visitor, the anonymous ones before identify too, under the visitor's id", async () => {
    const data = emulator.state.projects.get(1)!
    // A seeded identified person whose first visit was anonymous (its events carry the anonymous id) and
    // who came back identified.
    const [[personId]] = (await directQuery(
      'SELECT person_id FROM events GROUP BY person_id HAVING count(DISTINCT distinct_id) > 1 LIMIT 1',
    )) as [[string]]
    const person = data.persons.withIdOrUuid(personId)!
    const [anonymousId, userId] = person.distinctIds as [string, string]
    expect(userId).toMatch(/^user_/)
    const visitor = await handlers('analytics_visitor').get(ctx({ slow: new Set(['total_events']) }), userId)
    expect(visitor.id).toBe(personId) // a distinct id still finds the person
    expect((await handlers('analytics_visitor').get(ctx(), personId)).id).toBe(personId)

    const window = { start_gte: daysBefore(40), end_lt: UNTIL }
    const events = await handlers('analytics_event').list(
      ctx({ raw: true }),
      list({ limit: 1000, filters: { ...window, visitor_id: personId } }),
    )
    const distinctIds = new Set(events.map((e) => (e.raw as { distinct_id: string }).distinct_id))
    expect(distinctIds).toEqual(new Set([anonymousId, userId]))
    expect(events.every((e) => e.visitor_id === personId)).toBe(true)
    expect(events).toHaveLength(visitor.total_events as number)
    // Sessions report the same visitor, the anonymous first visit included.
    const sessions = await handlers('analytics_session').list(
      ctx({ raw: true }),
      list({ limit: 100, filters: { ...window, visitor_id: personId } }),
    )
    expect(new Set(sessions.map((x) => (x.raw as { distinct_id: string }).distinct_id))).toEqual(distinctIds)
    expect(sessions.every((x) => x.visitor_id === personId)).toBe(true)
    const unfiltered = await handlers('analytics_session').list(ctx(), list({ limit: 200, filters: window }))
    expect(
      unfiltered
        .filter((x) => x.visitor_id === personId)
        .map((x) => x.id)
        .sort(),
    ).toEqual(sessions.map((x) => x.id).sort())
  })

  it("reads last_seen_at with the totals, from the person's last event", async () => {
    const slow = new Set(['last_seen_at'])
    const [v] = await handlers('analytics_visitor').list(ctx({ slow }), list({ limit: 1 }))
    const [[last]] = (await directQuery(
      `SELECT max(timestamp) FROM events WHERE person_id = '${(v!.raw as { __id: string }).__id}'`,
    )) as [[string]]
    expect((v!.last_seen_at as Date).toISOString()).toBe(new Date(last).toISOString())
  })

  it('searches by email with query', async () => {
    const [someone] = (await handlers('analytics_visitor').list(ctx(), list({ limit: 40 }))).filter(
      (v) => v.email,
    )
    const found = await handlers('analytics_visitor').list(ctx(), list({ query: someone?.email as string }))
    expect(found.map((v) => v.id)).toEqual([someone?.id])
  })

  it('computes totals for a whole page in one grouped query, only when asked', async () => {
    const slow = new Set(['total_sessions', 'total_page_views', 'total_events'])
    const visitors = await handlers('analytics_visitor').list(ctx({ slow }), list({ limit: 5 }))
    expect(sentQueries()).toHaveLength(1)
    for (const v of visitors) {
      const uuid = (v.raw as { __id: string }).__id
      const [[events, pageviews]] = (await directQuery(
        `SELECT count(), countIf(event = '$pageview') FROM events WHERE person_id = '${uuid}'`,
      )) as [[number, number]]
      expect([v.total_events, v.total_page_views]).toEqual([events, pageviews])
    }
  })

  it('creates a visitor with $identify under the id PostHog gives the person, then reads, patches, updates and removes it', async () => {
    const h = handlers('analytics_visitor')
    const created = await h.create(ctx(), {
      email: 'new@example.com',
      name: 'New Person',
      raw: { distinct_id: 'crm_77' },
    })
    const uuid = emulator.state.projects.get(1)!.persons.withDistinctId('crm_77')?.uuid
    expect(created).toMatchObject({ id: uuid, email: 'new@example.com', name: 'New Person' })
    expect(emulator.requests().at(-1)?.body).toMatchObject({
      event: '$identify',
      distinct_id: 'crm_77',
      properties: { $set: { email: 'new@example.com', name: 'New Person' } },
    })
    const id = created.id as string
    const read = await h.get(ctx(), id)
    expect(read).toMatchObject({ id, email: 'new@example.com' })
    expect((await h.get(ctx(), 'crm_77')).id).toBe(id)
    expect(await h.patch(ctx(), id, { name: 'Renamed' })).toMatchObject({
      id,
      name: 'Renamed',
      email: 'new@example.com',
    })
    expect((await h.get(ctx(), id)).name).toBe('Renamed')
    expect(
      await h.update(ctx(), id, { city: 'Lisbon', metadata: { tier: { value: 'gold' } } }),
    ).toMatchObject({
      city: 'Lisbon',
      metadata: { tier: { value: 'gold' } },
    })
    await h.remove(ctx(), id)
    expect(((await failure(h.get(ctx(), id))) as ProviderError).status).toBe(404)
  })

  it("counts events back-filled before the person was created in the visitor's totals", async () => {
    const created = await handlers('analytics_visitor').create(ctx(), {
      email: 'late@example.com',
      raw: { distinct_id: 'backfill_1' },
    })
    // An import of the visitor's history: events from long before the person was created.
    for (const day of ['2023-03-01', '2023-03-02']) {
      const event = await handlers('analytics_event').create(ctx(), {
        event_type: 'PAGE_VIEW',
        visitor_id: created.id as string,
        raw: { timestamp: `${day}T10:00:00.000Z` },
      })
      expect(event.visitor_id).toBe(created.id)
    }
    const slow = new Set(['total_events', 'total_page_views'])
    const visitor = await handlers('analytics_visitor').get(ctx({ slow }), created.id as string)
    expect(visitor).toMatchObject({ total_events: 3, total_page_views: 2 })
  })

  it('generates the distinct id when none is given', async () => {
    const created = await handlers('analytics_visitor').create(ctx(), { email: 'anon@example.com' })
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/)
    expect((await handlers('analytics_visitor').get(ctx(), created.id as string)).email).toBe(
      'anon@example.com',
    )
  })

  it('scopes the visitor ids of a second project in persons, events and sessions alike, so they round-trip', async () => {
    const window = { property_id: '2', start_gte: daysBefore(40), end_lt: UNTIL }
    const [event] = await handlers('analytics_event').list(ctx(), list({ limit: 1, filters: window }))
    const id = event?.visitor_id as string
    const person = emulator.state.projects.get(2)!.persons.withIdOrUuid(id.slice(2))
    expect(id).toBe(`2:${person?.uuid}`)
    expect((await handlers('analytics_visitor').get(ctx(), id)).id).toBe(id)
    const events = await handlers('analytics_event').list(
      ctx(),
      list({ limit: 500, filters: { ...window, visitor_id: id } }),
    )
    expect(events.length).toBeGreaterThan(0)
    expect(events.every((e) => e.visitor_id === id)).toBe(true)
    const sessions = await handlers('analytics_session').list(
      ctx(),
      list({ limit: 100, filters: { ...window, visitor_id: id } }),
    )
    expect(sessions.length).toBeGreaterThan(0)
    expect(sessions.every((x) => x.visitor_id === id)).toBe(true)
    const [visitor] = await handlers('analytics_visitor').list(ctx(), list({ limit: 1, filters: window }))
    expect(visitor?.id).toMatch(/^2:[0-9a-f-]{36}$/)
  })

  // PostHog's HogQL reads `events.person_id` through an INNER JOIN of person_distinct_ids when
  // persons-on-events is off (`disabled`), and the uuid stamped at ingestion otherwise (the default).
  for (const [mode, n] of [
    ['disabled', 1],
    ['person_id_override_properties_joined', 2],
  ] as const) {
    it(`names a person-less distinct id by itself in events, sessions and filters (persons-on-events ${mode})`, async () => {
      const team = emulator.state.projects.get(1)!.project
      team.personsOnEventsMode = mode
      try {
        const ghost = `ghost_${n}`
        const session = `0186b16c-0000-7000-8000-00000000d00${n}`
        const day = `2023-03-0${n}`
        const create = (name: string, time: string) =>
          handlers('analytics_event').create(ctx(), {
            name,
            visitor_id: ghost,
            session_id: session,
            page_url: 'https://shop.example/',
            raw: { timestamp: `${day}T${time}Z`, properties: { $process_person_profile: false } },
          })
        const created = await create('ping', '10:00:00.000')
        await create('pong', '10:05:00.000')
        expect(created.visitor_id).toBe(ghost)
        const window = { start_gte: new Date(`${day}T00:00:00Z`), end_lt: new Date(`${day}T23:00:00Z`) }
        const listed = await handlers('analytics_event').list(
          ctx(),
          list({ filters: { ...window, session_id: session } }),
        )
        expect(listed.map((e) => [e.name, e.visitor_id])).toEqual([
          ['pong', ghost],
          ['ping', ghost],
        ])
        const filtered = await handlers('analytics_event').list(
          ctx(),
          list({ filters: { ...window, visitor_id: ghost } }),
        )
        expect(filtered.map((e) => e.name)).toEqual(['pong', 'ping'])
        expect((await handlers('analytics_event').get(ctx(), created.id as string)).visitor_id).toBe(ghost)
        const sessions = await handlers('analytics_session').list(ctx(), list({ filters: window }))
        expect(sessions.map((x) => [x.id, x.visitor_id])).toEqual([[session, ghost]])
        const byVisitor = await handlers('analytics_session').list(
          ctx(),
          list({ filters: { ...window, visitor_id: ghost } }),
        )
        expect(byVisitor.map((x) => x.id)).toEqual([session])
        // There is no person to read.
        expect(
          ((await failure(handlers('analytics_visitor').get(ctx(), ghost))) as ProviderError).status,
        ).toBe(404)
      } finally {
        team.personsOnEventsMode = 'person_id_override_properties_joined'
      }
    })
  }

  it('counts person-less events in reports whatever the persons-on-events mode; USERS counts them only with it', async () => {
    const team = emulator.state.projects.get(1)!.project
    const report = async (day: string) => {
      const [r] = await handlers('analytics_report').list(
        ctx(),
        list({
          filters: {
            type: 'EVENTS,PAGE_VIEWS,USERS',
            start_gte: new Date(`${day}T00:00:00Z`),
            end_lt: new Date(`${day}T23:00:00Z`),
          },
        }),
      )
      return Object.fromEntries(
        ((r?.metrics ?? []) as { type: string; value: number }[]).map((m) => [m.type, m.value]),
      )
    }
    for (const [mode, day, users] of [
      ['disabled', '2023-04-01', 0],
      ['person_id_override_properties_joined', '2023-04-02', 1],
    ] as const) {
      team.personsOnEventsMode = mode
      try {
        for (const time of ['10:00:00Z', '10:05:00Z'])
          await handlers('analytics_event').create(ctx(), {
            event_type: 'PAGE_VIEW',
            visitor_id: `ghost_report_${day}`,
            raw: { timestamp: `${day}T${time}`, properties: { $process_person_profile: false } },
          })
        expect(await report(day)).toEqual({ EVENTS: 2, PAGE_VIEWS: 2, USERS: users })
      } finally {
        team.personsOnEventsMode = 'person_id_override_properties_joined'
      }
    }
  })

  it('adds raw parameters to the persons query string', async () => {
    await handlers('analytics_visitor').list(ctx({}, { email: 'nobody@example.com' }), list({ limit: 1 }))
    expect(emulator.requests()[0]?.query).toMatchObject({ email: 'nobody@example.com', limit: '1' })
  })
})

describe("a current team that is not its project's first (PostHog environments)", () => {
  let ph: PosthogEmulator
  let phClient: ProviderClient
  let phCredentials: Credentials
  beforeAll(async () => {
    ph = await startPosthogEmulator({ seed: 5, size: { projects: 1, events: 60, sessions: 10, persons: 5 } })
    phCredentials = { token: DEFAULT_PERSONAL_API_KEY, api_url: ph.url }
    phClient = new ProviderClient({
      baseUrl: definition.baseUrl(phCredentials),
      authHeaders: definition.authHeaders(phCredentials),
      retry: definition.retry,
      timeoutMs: 5000,
      maxRetries: 2,
      maxRetryWaitMs: 3000,
      transport,
    })
    // The user last looked at another environment of project 1: `@me`'s team is that one.
    ph.state.currentTeamId = ph.state.createEnvironment(1, { name: 'Staging' }).project.id
  })
  afterAll(async () => ph?.close())
  const envCtx = (s: ConnectionSettings): HandlerContext => ({
    ...ctx(),
    client: phClient,
    credentials: phCredentials,
    settings: s,
  })

  it("captures into the team the project's routes read, and names created visitors by that team's uuids", async () => {
    const verified = await definition.verify(phClient, phCredentials)
    // Project routes read the project's first team (id 1), so capture uses its key and id, not the current one's.
    expect(verified).toMatchObject({
      project_id: '1',
      project_api_key: DEFAULT_PROJECT_API_KEY,
      team_id: '1',
    })
    // A connection verified before kept the current team's key: it reads the project's key instead.
    const staging = ph.state.projects.get(ph.state.currentTeamId)!.project
    const legacy = { ...verified, project_api_key: staging.apiToken, team_id: undefined }
    for (const [settingsUsed, distinctId] of [
      [verified, 'crm_env_1'],
      [legacy, 'crm_env_2'],
    ] as const) {
      const c = envCtx(settingsUsed)
      const created = await handlers('analytics_visitor').create(c, {
        name: 'Eve',
        raw: { distinct_id: distinctId },
      })
      const person = ph.state.projects.get(1)!.persons.withDistinctId(distinctId)
      expect(created.id).toBe(person?.uuid)
      expect((await handlers('analytics_visitor').get(c, created.id as string)).id).toBe(created.id)
      const event = await handlers('analytics_event').create(c, { name: 'ping', visitor_id: 'crm_env_new' })
      const [listed] = await handlers('analytics_event').list(
        c,
        list({ limit: 1, filters: { visitor_id: event.visitor_id as string } }),
      )
      expect(listed).toMatchObject({ id: event.id, visitor_id: event.visitor_id })
    }
    expect(ph.state.projects.get(staging.id)!.persons.list).toEqual([])
  })
})

describe('analytics_report', () => {
  it('answers one report for the default window (the last 30 days) with the default metrics', async () => {
    const before = Date.now()
    const reports = await handlers('analytics_report').list(ctx(), list())
    expect(reports).toHaveLength(1)
    const start = reports[0]?.start_at as Date
    expect(start.getTime()).toBeGreaterThanOrEqual(before - 30 * 86_400_000)
    expect(start.getTime()).toBeLessThanOrEqual(Date.now() - 30 * 86_400_000)
    expect(sentQueries().every((q) => q.includes(`>= toDateTime('${start.toISOString()}')`))).toBe(true)
    const metrics = reports[0]?.metrics as { type: string; value: number }[]
    expect(metrics.map((m) => m.type)).toEqual([
      'USERS',
      'SESSIONS',
      'PAGE_VIEWS',
      'EVENTS',
      'BOUNCE_RATE',
      'AVERAGE_SESSION_DURATION',
    ])
    const [[events]] = (await directQuery(
      `SELECT count() FROM events WHERE timestamp >= '${start.toISOString()}'`,
    )) as [[number]]
    const [[sessions]] = (await directQuery(
      `SELECT count() FROM sessions WHERE $start_timestamp >= '${start.toISOString()}'`,
    )) as [[number]]
    expect(metrics.find((m) => m.type === 'EVENTS')?.value).toBe(events)
    expect(metrics.find((m) => m.type === 'SESSIONS')?.value).toBe(sessions)
  })

  it('breaks metrics over events and sessions down by date, paging the merged days', async () => {
    const h = handlers('analytics_report')
    const first = daysBefore(20)
    const firstDay = first.toISOString().slice(0, 10)
    const filters = {
      type: 'SESSIONS,PAGE_VIEWS',
      dimension: 'DATE',
      start_gte: first,
    }
    const all = await h.list(ctx(), list({ filters }))
    const page = await h.list(ctx(), list({ limit: 3, offset: 2, filters }))
    const withoutRaw = (records: UnifiedRecord[]) => records.map(({ raw: _raw, ...rest }) => rest)
    expect(withoutRaw(page)).toEqual(withoutRaw(all.slice(2, 5)))
    // Every day of the range is a bucket (empty ones too), so the page is cut from the filled series.
    expect(all).toHaveLength(21)
    const days = all.map((r) => (r.metrics as { dimension_value: string }[])[0]?.dimension_value)
    expect(days[0]).toBe(firstDay)
    expect([...days].sort()).toEqual(days)
    const [firstReport] = all as UnifiedRecord[]
    expect(firstReport).toMatchObject({
      start_at: first,
      end_at: daysBefore(19),
    })
    const [[pageviews]] = (await directQuery(
      `SELECT countIf(event = '$pageview') FROM events WHERE toDate(timestamp) = '${firstDay}'`,
    )) as [[number]]
    expect(firstReport?.metrics).toContainEqual({
      type: 'PAGE_VIEWS',
      value: pageviews,
      dimension: 'DATE',
      dimension_value: firstDay,
    })
  })

  it('answers every day and hour of the range, empty ones with zero counts and no averages', async () => {
    const h = handlers('analytics_report')
    // The seeded data ends at UNTIL: the three days after it are empty.
    const start = daysBefore(3)
    const end = daysBefore(-3)
    const filters = { type: 'EVENTS,SESSIONS,BOUNCE_RATE', dimension: 'DATE', start_gte: start, end_lt: end }
    const days = await h.list(ctx(), list({ filters }))
    const dayOf = (i: number) =>
      daysBefore(3 - i)
        .toISOString()
        .slice(0, 10)
    expect(days.map((r) => (r.metrics as { dimension_value: string }[])[0]?.dimension_value)).toEqual(
      [0, 1, 2, 3, 4, 5].map(dayOf),
    )
    for (const [i, r] of days.entries()) {
      expect(r).toMatchObject({ start_at: daysBefore(3 - i), end_at: daysBefore(2 - i) })
      const [[events]] = (await directQuery(
        `SELECT count() FROM events WHERE toDate(timestamp) = '${dayOf(i)}'`,
      )) as [[number]]
      const metrics = r.metrics as { type: string; value?: number }[]
      expect(metrics.find((m) => m.type === 'EVENTS')?.value).toBe(events)
      if (i >= 3) {
        expect(metrics.find((m) => m.type === 'SESSIONS')?.value).toBe(0)
        expect(metrics.find((m) => m.type === 'BOUNCE_RATE')?.value).toBeUndefined()
      }
    }
    const page = await h.list(ctx(), list({ limit: 2, offset: 3, filters }))
    expect(page.map((r) => r.start_at)).toEqual([daysBefore(0), daysBefore(-1)])

    const hourStart = new Date(UNTIL.getTime() - 2 * 3_600_000)
    const hours = await h.list(
      ctx(),
      list({
        filters: {
          type: 'EVENTS',
          dimension: 'HOUR',
          start_gte: hourStart,
          end_lt: new Date(UNTIL.getTime() + 3 * 3_600_000),
        },
      }),
    )
    expect(hours.map((r) => (r.start_at as Date).getTime())).toEqual(
      [0, 1, 2, 3, 4].map((i) => hourStart.getTime() + i * 3_600_000),
    )
    // Each hour counts what PostHog holds there: the hours after the seeded data are empty unless another
    // test captured an event in them (this one runs just after midnight UTC, say).
    for (const r of hours) {
      const from = r.start_at as Date
      const to = new Date(from.getTime() + 3_600_000)
      const [[held]] = (await directQuery(
        `SELECT count() FROM events WHERE timestamp >= toDateTime('${from.toISOString()}') AND timestamp < toDateTime('${to.toISOString()}')`,
      )) as [[number]]
      expect((r.metrics as { value: number }[])[0]?.value, from.toISOString()).toBe(held)
    }
    const now = Date.now()
    const emptyHours = hours.slice(2).filter((r) => (r.start_at as Date).getTime() > now)
    for (const r of emptyHours) expect((r.metrics as { value: number }[])[0]?.value).toBe(0)
  })

  it("labels DATE buckets of a New York project with New York's days, counting what each instant range holds", async () => {
    const h = handlers('analytics_report')
    const start = daysBefore(25) // UTC midnight: 19:00 or 20:00 the day before in New York
    const end = daysBefore(5)
    const reports = await h.list(
      ctx(),
      list({
        filters: { property_id: '2', type: 'EVENTS', dimension: 'DATE', start_gte: start, end_lt: end },
      }),
    )
    expect(reports.length).toBeGreaterThan(3)
    // The zone comes with the query's answer (`timezone`): no extra call for it.
    expect(emulator.requests().filter((r) => !r.path.endsWith('/query/'))).toEqual([])
    const newYork = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'America/New_York',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
    const wall = (d: Date) => newYork.format(d).replace(',', '')
    for (const [i, r] of reports.entries()) {
      const day = (r.metrics as { dimension_value: string }[])[0]!.dimension_value
      const from = r.start_at as Date
      const to = r.end_at as Date
      // Each bucket runs from a New York midnight to the next; the first one starts at start_gte.
      if (from.getTime() !== start.getTime()) expect(wall(from)).toBe(`${day} 00:00`)
      else expect(i).toBe(0)
      if (to.getTime() !== end.getTime()) expect(wall(to).slice(11)).toBe('00:00')
      expect(wall(new Date(to.getTime() - 1)).slice(0, 10)).toBe(day)
      // The claimed instants hold exactly the counted events (asked with explicit UTC instants).
      const res = await fetch(`${emulator.url}/api/projects/2/query/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: {
            kind: 'HogQLQuery',
            query: `SELECT count() FROM events WHERE timestamp >= '${from.toISOString()}' AND timestamp < '${to.toISOString()}'`,
          },
        }),
      })
      const [[count]] = ((await res.json()) as { results: [[number]] }).results
      expect((r.metrics as { value: number }[])[0]?.value).toBe(count)
    }
  })

  it("breaks events and sessions down by the same source: each visit's entry campaign", async () => {
    const session = '0186a0a0-0000-7000-8000-00000000c001'
    const pageview = (timestamp: string, properties: Record<string, unknown>) =>
      fetch(`${emulator.url}/i/v0/e/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          api_key: DEFAULT_PROJECT_API_KEY,
          event: '$pageview',
          distinct_id: 'source_probe',
          timestamp,
          properties: { $session_id: session, $current_url: 'https://shop.example/', ...properties },
        }),
      })
    // The visit enters from a newsletter; a later page carries another campaign's parameters.
    await pageview('2023-02-01T10:00:00Z', {
      utm_source: 'spring_mail',
      utm_medium: 'email',
      utm_campaign: 'spring',
    })
    await pageview('2023-02-01T10:02:00Z', { utm_source: 'partner_site', utm_medium: 'referral' })
    const range = { start_gte: new Date('2023-02-01T00:00:00Z'), end_lt: new Date('2023-02-02T00:00:00Z') }
    for (const [dimension, value] of [
      ['SOURCE', 'spring_mail'],
      ['MEDIUM', 'email'],
      ['CAMPAIGN', 'spring'],
    ] as const) {
      const reports = await handlers('analytics_report').list(
        ctx(),
        list({ filters: { ...range, dimension, type: 'PAGE_VIEWS,USERS,SESSIONS' } }),
      )
      expect(
        reports.map((r) => r.metrics),
        dimension,
      ).toEqual([
        [
          { type: 'PAGE_VIEWS', value: 2, dimension, dimension_value: value },
          { type: 'USERS', value: 1, dimension, dimension_value: value },
          { type: 'SESSIONS', value: 1, dimension, dimension_value: value },
        ],
      ])
    }
  })

  it('refuses unknown metrics with 400 and ones PostHog cannot compute with 501', async () => {
    const h = handlers('analytics_report')
    expect(((await failure(h.list(ctx(), list({ filters: { type: 'NOPE' } })))) as ApiError).statusCode).toBe(
      400,
    )
    expect(
      ((await failure(h.list(ctx(), list({ filters: { type: 'LIKES' } })))) as ApiError).statusCode,
    ).toBe(501)
    const byBrowser = h.list(ctx(), list({ filters: { type: 'SESSIONS', dimension: 'BROWSER' } }))
    expect(((await failure(byBrowser)) as ApiError).statusCode).toBe(501)
  })

  it('breaks events down by browser', async () => {
    const reports = await handlers('analytics_report').list(
      ctx(),
      list({ filters: { type: 'EVENTS', dimension: 'BROWSER', start_gte: daysBefore(31) } }),
    )
    const total = reports.reduce((n, r) => n + ((r.metrics as { value: number }[])[0]?.value ?? 0), 0)
    const [[events]] = (await directQuery(
      `SELECT count() FROM events WHERE timestamp >= '${daysBefore(31).toISOString()}'`,
    )) as [[number]]
    expect(total).toBe(events)
  })
})

describe("PostHog's query limits", () => {
  let limited: PosthogEmulator
  let limitedCtx: () => HandlerContext

  beforeAll(async () => {
    // Seeded data ends 2025-01-01 (long before now); queries take 100 ms, a fourth concurrent one is refused
    // at once, and a query may read at most 100 rows (the data has 900 events, 120 sessions).
    limited = await startPosthogEmulator({
      seed: 7,
      size: { events: 900, sessions: 120, persons: 40 },
      query: { latencyMs: 100, slotWaitMs: 0, maxRowsScanned: 100 },
    })
    const creds: Credentials = { token: DEFAULT_PERSONAL_API_KEY, api_url: limited.url }
    const limitedClient = new ProviderClient({
      baseUrl: definition.baseUrl(creds),
      authHeaders: definition.authHeaders(creds),
      retry: definition.retry,
      timeoutMs: 5000,
      maxRetries: 0,
      maxRetryWaitMs: 3000,
      transport,
    })
    const limitedSettings = await definition.verify(limitedClient, creds)
    limitedCtx = () => ({
      client: limitedClient,
      credentials: creds,
      settings: limitedSettings,
      connectionId: 'conn_limited',
      fields: { raw: false, rawNames: [], slow: new Set(['total_events', 'total_sessions']) },
      rawParams: {},
      cursors: memoryCursors(),
    })
  })
  afterAll(async () => limited?.close())

  it('never runs more than 3 queries at once on a team, however many requests arrive together', async () => {
    const filters = { start_gte: new Date('2024-12-20T00:00:00Z'), end_lt: new Date('2024-12-21T00:00:00Z') }
    // Four reports over events and sessions: eight queries wanted at the same moment.
    const reports = await Promise.all(
      [1, 2, 3, 4].map(() => handlers('analytics_report').list(limitedCtx(), list({ filters }))),
    )
    expect(reports.every((r) => r.length === 1)).toBe(true)
    expect(limited.state.queryLimiter.stats.throttled).toBe(0)
    expect(limited.state.queryLimiter.stats.maxConcurrent).toBe(3)
  })

  it('bounds lists without a start to the default window instead of scanning all time', async () => {
    // The data is older than 30 days: the window is empty, and reading it costs nothing.
    expect(await handlers('analytics_event').list(limitedCtx(), list())).toEqual([])
    expect(await handlers('analytics_session').list(limitedCtx(), list())).toEqual([])
    expect(limited.state.queryLimiter.stats.timedOut).toBe(0)
  })

  it('looks a session up around the time of its UUIDv7 id', async () => {
    const session = limited.state.projects.get(1)!.sessions.list[5]!
    const found = await handlers('analytics_session').get(limitedCtx(), session.id)
    expect(found.id).toBe(session.id)
    expect(limited.state.queryLimiter.stats.timedOut).toBe(0)
  })

  it("counts visitor totals over all of the persons' events, so a team too big to scan answers PostHog's 504", async () => {
    const err = await handlers('analytics_visitor')
      .list(limitedCtx(), list({ limit: 1 }))
      .catch((e: unknown) => e)
    expect((err as ProviderError).status).toBe(504)
    expect((err as ProviderError).providerMessage).toMatch(/max execution time/)
  })

  it("passes PostHog's execution limit on with a hint to narrow the range", async () => {
    const err = await handlers('analytics_event')
      .list(limitedCtx(), list({ filters: { start_gte: new Date('2024-11-01T00:00:00Z') } }))
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProviderError)
    expect((err as ProviderError).status).toBe(504)
    expect((err as ProviderError).providerMessage).toMatch(/max execution time.*narrow the time range/)
  })

  it('does not retry a query PostHog stopped at its execution limit', async () => {
    const retrying = new ProviderClient({
      baseUrl: definition.baseUrl({ token: DEFAULT_PERSONAL_API_KEY, api_url: limited.url }),
      authHeaders: definition.authHeaders({ token: DEFAULT_PERSONAL_API_KEY, api_url: limited.url }),
      retry: definition.retry,
      timeoutMs: 5000,
      maxRetries: 2,
      maxRetryWaitMs: 3000,
      transport,
    })
    limited.clearRequests()
    const err = await handlers('analytics_event')
      .list(
        { ...limitedCtx(), client: retrying },
        list({ filters: { start_gte: new Date('2024-11-01T00:00:00Z') } }),
      )
      .catch((e: unknown) => e)
    expect((err as ProviderError).status).toBe(504)
    expect(limited.requests().filter((r) => r.path.endsWith('/query/'))).toHaveLength(1)
  })
})
