import { describe, expect, it } from 'vitest'
import { DEFAULT_UMAMI_API_KEY, DEFAULT_UMAMI_LOGIN_TOKEN, startUmamiEmulator } from './index.js'
import { effectiveUnit } from './units.js'

describe('Umami emulator', () => {
  it('seeds the same data from the same seed, of the size asked', async () => {
    const [a, b] = await Promise.all([
      startUmamiEmulator({ seed: 9, sessions: 30 }),
      startUmamiEmulator({ seed: 9, sessions: 30 }),
    ])
    try {
      expect([...a.state.websites.keys()]).toEqual([...b.state.websites.keys()])
      expect(a.state.events.map((e) => e.id)).toEqual(b.state.events.map((e) => e.id))
      const first = [...a.state.websites.keys()][0]
      expect([...a.state.sessions.values()].filter((s) => s.websiteId === first)).toHaveLength(30)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('rejects what Umami rejects: the wrong auth scheme per host, missing time range, unknown metric type', async () => {
    const emu = await startUmamiEmulator({})
    try {
      const site = [...emu.state.websites.keys()][0]
      const get = async (path: string, headers: Record<string, string>) => {
        const res = await fetch(`${emu.url}${path}`, { headers })
        return { status: res.status, body: (await res.json()) as Record<string, unknown> }
      }
      const cloud = { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY }
      const bearer = { authorization: `Bearer ${DEFAULT_UMAMI_LOGIN_TOKEN}` }
      expect((await get('/v1/websites', bearer)).status).toBe(401)
      expect((await get('/api/websites', cloud)).status).toBe(401)
      // Self-hosted Umami has no API keys: a Cloud key as Bearer is refused, a login token works.
      expect((await get('/api/websites', { authorization: `Bearer ${DEFAULT_UMAMI_API_KEY}` })).status).toBe(
        401,
      )
      expect((await get('/api/websites', bearer)).status).toBe(200)
      // A website the caller cannot see, existing or not, is 401 (canViewWebsite), never 404.
      const unknown = await get('/v1/websites/00000000-0000-4000-8000-000000000000', cloud)
      expect(unknown).toEqual({
        status: 401,
        body: { error: { code: 'unauthorized', message: 'Unauthorized', status: 401 } },
      })
      expect((await get('/v1/users', cloud)).status).toBe(403)
      const noRange = await get(`/v1/websites/${site}/events`, cloud)
      expect(noRange).toEqual({
        status: 400,
        body: {
          error: {
            code: 'bad-request',
            message: 'Bad request',
            status: 400,
            errors: ['Either startAt+endAt or startDate+endDate must be provided'],
          },
        },
      })
      expect((await get(`/v1/websites/${site}/metrics?startAt=0&endAt=1&type=url`, cloud)).status).toBe(400)
      const send = await fetch(`${emu.url}/api/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Googlebot/2.1' },
        body: JSON.stringify({ type: 'event', payload: { website: site, url: '/' } }),
      })
      expect(await send.json()).toEqual({ beep: 'boop' })
    } finally {
      await emu.close()
    }
  })

  it('logs in to self-hosted with username and password, and refuses wrong ones', async () => {
    const emu = await startUmamiEmulator({})
    try {
      const login = async (body: unknown) => {
        const res = await fetch(`${emu.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
        return { status: res.status, body: (await res.json()) as Record<string, unknown> }
      }
      const wrong = await login({ username: 'admin', password: 'nope' })
      expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'incorrect-username-password' } } })
      const ok = await login({ username: 'admin', password: 'umami' })
      expect(ok.status).toBe(200)
      const res = await fetch(`${emu.url}/api/websites`, {
        headers: { authorization: `Bearer ${ok.body.token}` },
      })
      expect(res.status).toBe(200)
    } finally {
      await emu.close()
    }
  })

  it('counts breakdowns and the sessions series in distinct sessions, and ignores website ordering', async () => {
    const emu = await startUmamiEmulator({ seed: 3, sessions: 80, websites: 6 })
    try {
      const site = [...emu.state.websites.keys()][0] as string
      const get = async <T>(path: string) => {
        const res = await fetch(`${emu.url}/v1${path}`, {
          headers: { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY },
        })
        return (await res.json()) as T
      }
      const range = 'startAt=0&endAt=1717200000000'
      const views = emu.state.events.filter((e) => e.websiteId === site && e.eventType === 1)
      const distinct = (path: string) =>
        new Set(views.filter((e) => e.urlPath === path).map((e) => e.sessionId)).size
      const rows = await get<{ x: string; y: number }[]>(`/websites/${site}/metrics?${range}&type=path`)
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) expect(row.y).toBe(distinct(row.x))
      // Views of one path by one session are counted once: the seed has such repeats.
      expect(rows.reduce((n, r) => n + r.y, 0)).toBeLessThan(views.length)

      // An hour unit over 60 days is replaced by days, silently.
      const span = `startAt=${Date.parse('2024-04-01T00:00:00Z')}&endAt=${Date.parse('2024-05-31T00:00:00Z') - 1}`
      const series = await get<{ pageviews: { x: string }[]; sessions: { x: string; y: number }[] }>(
        `/websites/${site}/pageviews?${span}&unit=hour&timezone=utc`,
      )
      expect(series.pageviews.every((p) => p.x.endsWith('T00:00:00Z'))).toBe(true)
      const day = series.sessions[0] as { x: string; y: number }
      const inDay = views.filter(
        (e) => new Date(e.createdAt).toISOString().slice(0, 10) === day.x.slice(0, 10),
      )
      expect(day.y).toBe(new Set(inDay.map((e) => e.sessionId)).size)

      const names = (page: { data: { name: string }[] }) => page.data.map((w) => w.name)
      const asc = await get<{ data: { name: string }[] }>('/websites?includeTeams=1&orderBy=name')
      const desc = await get<{ data: { name: string }[] }>(
        '/websites?includeTeams=1&orderBy=name&sortDescending=true',
      )
      expect(names(asc)).toEqual(names(desc))
      expect(names(asc)).not.toEqual([...names(asc)].sort())
    } finally {
      await emu.close()
    }
  })

  it('returns event rows with their session place and device but no distinct id', async () => {
    const emu = await startUmamiEmulator({ seed: 3, sessions: 20 })
    try {
      const site = [...emu.state.websites.keys()][0] as string
      const res = await fetch(`${emu.url}/v1/websites/${site}/events?startAt=0&endAt=1717200000000`, {
        headers: { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY },
      })
      const row = ((await res.json()) as { data: Record<string, unknown>[] }).data[0] as Record<
        string,
        unknown
      >
      const session = emu.state.sessions.get(row.sessionId as string)
      expect(row).toMatchObject({ country: session?.country, city: session?.city, browser: session?.browser })
      expect(row).not.toHaveProperty('distinctId')
      expect(row).not.toHaveProperty('region')
    } finally {
      await emu.close()
    }
  })

  it('picks the unit as Umami does: finest allowed for the range, months always allowed', () => {
    const at = (iso: string) => Date.parse(iso)
    const start = at('2024-01-01T00:00:00Z')
    expect(effectiveUnit('hour', start, at('2024-01-31T00:00:00Z'))).toBe('hour')
    expect(effectiveUnit('hour', start, at('2024-02-01T00:00:00Z'))).toBe('day')
    expect(effectiveUnit('day', start, at('2024-08-31T00:00:00Z'))).toBe('day')
    expect(effectiveUnit('day', start, at('2024-09-01T00:00:00Z'))).toBe('month')
    expect(effectiveUnit('day', start, at('2026-02-01T00:00:00Z'))).toBe('year')
    expect(effectiveUnit('month', start, at('2030-01-01T00:00:00Z'))).toBe('month')
    expect(effectiveUnit(undefined, start, at('2024-01-01T00:30:00Z'))).toBe('minute')
  })

  it('applies the older rules (v2.x to v3.0.3) when asked: hours for 48 hours, days for 6 months', () => {
    const at = (iso: string) => Date.parse(iso)
    const start = at('2024-01-01T00:00:00Z')
    expect(effectiveUnit('hour', start, at('2024-01-03T00:59:59Z'), '3.0')).toBe('hour')
    expect(effectiveUnit('hour', start, at('2024-01-03T01:00:00Z'), '3.0')).toBe('day')
    expect(effectiveUnit('day', start, at('2024-07-31T23:59:59Z'), '3.0')).toBe('day')
    expect(effectiveUnit('day', start, at('2024-08-01T00:00:00Z'), '3.0')).toBe('month')
  })

  it('cuts long titles and url parts at 500 when stored, and fails a distinct id over 50 characters', async () => {
    const emu = await startUmamiEmulator({ seed: 3, sessions: 5 })
    try {
      const site = [...emu.state.websites.keys()][0] as string
      const send = async (payload: Record<string, unknown>, ua = 'Mozilla/5.0 (X11; Linux x86_64)') => {
        const res = await fetch(`${emu.url}/api/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': ua },
          body: JSON.stringify({ type: 'event', payload: { website: site, ...payload } }),
        })
        return res.status
      }
      expect(await send({ url: `/${'p'.repeat(700)}`, title: 't'.repeat(700) })).toBe(200)
      const stored = emu.state.events.at(-1)
      expect(stored?.urlPath).toHaveLength(500)
      expect(stored?.pageTitle).toHaveLength(500)
      expect(await send({ url: '/', id: 'i'.repeat(51) })).toBe(500)
      // An unknown website is refused before the bot check.
      const res = await fetch(`${emu.url}/api/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Googlebot/2.1' },
        body: JSON.stringify({ type: 'event', payload: { website: '00000000-0000-4000-8000-000000000000' } }),
      })
      expect(res.status).toBe(400)
    } finally {
      await emu.close()
    }
  })

  it('answers /stats, /metrics, /active and website writes as Umami v3.1.0 does', async () => {
    const emu = await startUmamiEmulator({ sessions: 40 })
    try {
      const site = [...emu.state.websites.keys()][0] as string
      const cloud = { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY, 'content-type': 'application/json' }
      const get = async (path: string) => {
        const res = await fetch(`${emu.url}/v1/websites/${site}${path}`, { headers: cloud })
        return { status: res.status, body: (await res.json()) as unknown }
      }
      // `prev` shifts both ends back by the range in whole minutes: a day less 1 ms is 1439 minutes, so
      // the comparison window ends a minute inside the current one (getCompareDate).
      const day = Date.parse('2024-05-20T00:00:00Z')
      const inOverlap = emu.state.events.find((e) => e.websiteId === site && e.eventType === 1)
      if (!inOverlap) throw new Error('no seeded pageview')
      const start = inOverlap.createdAt - 30_000
      const end = start + 86_400_000 - 1
      const stats = (await get(`/stats?startAt=${start}&endAt=${end}`)).body as {
        pageviews: number
        comparison: { pageviews: number }
      }
      const previous = (await get(`/stats?startAt=${start - 1439 * 60_000}&endAt=${end - 1439 * 60_000}`))
        .body as { pageviews: number }
      expect(stats.comparison.pageviews).toBe(previous.pageviews)
      expect(stats.comparison.pageviews).toBeGreaterThan(0)
      expect((await get(`/stats?startAt=${day}&endAt=${day + 1}&compare=week`)).status).toBe(400)
      // An unknown type is a bare 400; limit 0 is no rows, not a refusal; channels are Umami's own.
      const unknownType = await get(`/metrics?startAt=0&endAt=${day}&type=url`)
      expect(unknownType).toEqual({
        status: 400,
        body: { error: { code: 'bad-request', message: 'Bad request', status: 400 } },
      })
      expect((await get(`/metrics?startAt=0&endAt=${day}&type=path&limit=0`)).body).toEqual([])
      const languages = (await get(`/metrics?startAt=0&endAt=${Date.now()}&type=language`)).body as {
        x: string
      }[]
      expect(languages.map((l) => l.x).sort()).toEqual(['de', 'en', 'fr'])
      const channels = (await get(`/metrics?startAt=0&endAt=${Date.now()}&type=channel`)).body as {
        x: string
      }[]
      expect(channels.map((c) => c.x).sort()).toEqual(
        expect.arrayContaining(['direct', 'organicSearch', 'organicSocial', 'email']),
      )
      expect(channels.map((c) => c.x)).not.toContain('referral')
      // /active counts sessions of the last five minutes.
      expect((await get('/active')).body).toEqual({ visitors: 0 })
      const sent = await fetch(`${emu.url}/api/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'event', payload: { website: site, url: '/now' } }),
      })
      expect(sent.status).toBe(200)
      expect((await get('/active')).body).toEqual({ visitors: 1 })
      // Unknown keys are dropped, not refused; a taken id fails in the database (500).
      const created = await fetch(`${emu.url}/v1/websites`, {
        method: 'POST',
        headers: cloud,
        body: JSON.stringify({ name: 'New', domain: 'new.example', colour: 'red' }),
      })
      expect(created.status).toBe(200)
      const again = await fetch(`${emu.url}/v1/websites`, {
        method: 'POST',
        headers: cloud,
        body: JSON.stringify({ name: 'Dup', domain: 'dup.example', id: site }),
      })
      expect(again.status).toBe(500)
    } finally {
      await emu.close()
    }
  })

  it('sums whole seconds per visit into /stats totaltime, rounding down as PostgreSQL floor does', async () => {
    const emu = await startUmamiEmulator({ sessions: 1 })
    try {
      const site = [...emu.state.websites.keys()][0] as string
      const session = [...emu.state.sessions.values()].find((s) => s.websiteId === site)
      if (!session) throw new Error('no seeded session')
      const at = Date.parse('2020-01-01T00:00:00Z')
      const view = (createdAt: number, id: string) => pageView(site, session.id, 'visit-1', createdAt, id)
      emu.state.events.push(view(at, 'e1'), view(at + 1_900, 'e2'))
      const res = await fetch(`${emu.url}/v1/websites/${site}/stats?startAt=${at}&endAt=${at + 60_000}`, {
        headers: { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY },
      })
      expect(await res.json()).toMatchObject({ pageviews: 2, visits: 1, bounces: 0, totaltime: 1 })
    } finally {
      await emu.close()
    }
  })
  it('counts whole hours in Cloud (ClickHouse) reports without an event filter, exact instants on PostgreSQL', async () => {
    const emu = await startUmamiEmulator({ sessions: 1 })
    try {
      const site = [...emu.state.websites.keys()][0] as string
      const session = [...emu.state.sessions.values()].find((s) => s.websiteId === site)
      if (!session) throw new Error('no seeded session')
      const hour = Date.parse('2020-01-01T10:00:00Z')
      const view = (createdAt: number, id: string) => pageView(site, session.id, `visit-${id}`, createdAt, id)
      // 10:10 and 10:40, then 11:20.
      emu.state.events.push(
        view(hour + 600_000, 'a'),
        view(hour + 2_400_000, 'b'),
        view(hour + 4_800_000, 'c'),
      )
      const window = `startAt=${hour + 1_800_000}&endAt=${hour + 5_400_000 - 1}`
      const stats = async (prefix: string, extra = '') => {
        const res = await fetch(`${emu.url}${prefix}/websites/${site}/stats?${window}${extra}`, {
          headers:
            prefix === '/v1'
              ? { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY }
              : { authorization: `Bearer ${DEFAULT_UMAMI_LOGIN_TOKEN}` },
        })
        return ((await res.json()) as { pageviews: number }).pageviews
      }
      // 10:30-11:30: ClickHouse reads the 11:00 row only (11:20); PostgreSQL counts 10:40 and 11:20.
      expect(await stats('/v1')).toBe(1)
      expect(await stats('/api')).toBe(2)
      // A filter on an event column reads website_event itself, instant by instant.
      expect(await stats('/v1', '&path=/')).toBe(2)
    } finally {
      await emu.close()
    }
  })
})

/** A page view event of a seeded session, as the emulator's state holds events. */
function pageView(websiteId: string, sessionId: string, visitId: string, createdAt: number, id: string) {
  return {
    id,
    websiteId,
    sessionId,
    visitId,
    createdAt,
    urlPath: '/',
    urlQuery: null,
    referrerDomain: null,
    pageTitle: null,
    eventType: 1 as const,
    eventName: null,
    hostname: 'site1.example.com',
    tag: null,
    data: null,
  }
}
