import { describe, expect, it } from 'vitest'
import { startYoutubeEmulator, type YoutubeEmulator } from '../emulators/youtube/index.js'
import { providerScopes } from '../src/authorization/scopes.js'
import youtube from '../src/integrations/youtube/definition.js'
import type { Harness } from './support/harness.js'
import { connected, supportMatrixOf, useEmulatorSuite } from './support/integration-suite.js'

type Rec = Record<string, unknown>
type Metric = { type: string; value: number; dimension?: string; dimension_value?: string }
type Report = Rec & { metrics: Metric[]; start_at: string; end_at: string; property_id: string }

const S = 'https://www.googleapis.com/auth/'
const SCOPES = [`${S}youtube.readonly`, `${S}yt-analytics.readonly`]

describe('YouTube through Unigate', () => {
  let h: Harness
  let emu: YoutubeEmulator
  let conn: string
  let partner: string
  let token: string
  const own = () => emu.seed.channels[0]!
  const sent = (path: string) => emu.requests().filter((r) => r.path === path)

  const connect = (auth: Rec) =>
    h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'youtube', auth: { api_url: emu.url, ...auth } },
    })

  useEmulatorSuite({
    start: () => startYoutubeEmulator({ seed: 5, managedChannels: 60 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      token = emu.authority.issueTokens({ scopes: SCOPES }).access_token
      conn = await connected(connect({ access_token: token }))
      const partnerToken = emu.authority.issueTokens({
        scopes: [...SCOPES, `${S}youtubepartner`],
      }).access_token
      partner = await connected(connect({ access_token: partnerToken, content_owner_id: 'acmecms' }))
    },
    reset: (emulator) => emulator.state.resetQuota(),
  })

  it('verifies the token with one channel read and refuses a rejected token', async () => {
    const ok = await connect({ access_token: token })
    expect(ok.status).toBe(200)
    expect(sent('/youtube/v3/channels')[0]).toMatchObject({
      query: { part: 'id', mine: 'true' },
      headers: { authorization: `Bearer ${token}` },
    })
    expect((await connect({ access_token: 'ya29.bogus' })).status).toBe(400)
  })

  it('asks for what its verification needs, so a report-only authorization connects and reports', async () => {
    const spec = youtube.auth
    if (spec.kind !== 'oauth2') throw new Error('YouTube authorizes with OAuth2')
    const scopes = providerScopes(['analytics_report_read'], spec.scopes, spec.alwaysScopes)
    expect(scopes.sort()).toEqual([`${S}youtube.readonly`, `${S}yt-analytics.readonly`])
    const reportOnly = emu.authority.issueTokens({ scopes }).access_token
    const res = await connect({ access_token: reportOnly })
    expect(res.status).toBe(200)
    expect((await h.api('GET', `/analytics/${res.body.id}/report`)).status).toBe(200)
  })

  it('refuses a content-owner connection whose token lacks youtubepartner, saying so', async () => {
    const res = await h.api<Rec>('POST', '/unified/connection', {
      body: {
        integration_type: 'youtube',
        auth: { api_url: emu.url, access_token: token, content_owner_id: 'acmecms' },
      },
    })
    expect(res.status).toBe(400)
    expect(String(res.body.message)).toContain('youtubepartner')
  })

  it('claims only what YouTube serves, and every claim answers', async () => {
    const support = await supportMatrixOf(h, 'youtube')
    expect(support.analytics_property?.methods).toEqual({
      list: true,
      get: true,
      create: false,
      update: false,
      patch: false,
      remove: false,
    })
    expect(support.analytics_report?.methods).toEqual({ list: true })
    expect(Object.keys(support).sort()).toEqual(['analytics_property', 'analytics_report'])
    expect((await h.api('GET', `/analytics/${conn}/property`)).status).toBe(200)
    expect((await h.api('GET', `/analytics/${conn}/property/${own().id}`)).status).toBe(200)
    expect((await h.api('GET', `/analytics/${conn}/report`)).status).toBe(200)
    for (const [method, path] of [
      ['POST', 'property'],
      ['DELETE', `property/${own().id}`],
      ['GET', 'event'],
      ['GET', 'session'],
      ['GET', 'visitor'],
    ] as const) {
      const r = await h.api<Rec>(
        method,
        `/analytics/${conn}/${path}`,
        method === 'POST' ? { body: { name: 'x' } } : {},
      )
      expect(r.status, `${method} ${path}`).toBe(501)
      expect(String(r.body.message)).toContain('youtube')
    }
  })

  describe('channels', () => {
    it('lists the token’s own channel as a property, with raw parts only when asked', async () => {
      const res = await h.api<Rec[]>('GET', `/analytics/${conn}/property`)
      expect(res.body).toEqual([
        {
          id: own().id,
          name: own().title,
          timezone: 'America/Los_Angeles',
          created_at: new Date(own().publishedAt).toISOString(),
        },
      ])
      expect(sent('/youtube/v3/channels')[0]?.query).toMatchObject({
        part: 'snippet',
        mine: 'true',
        maxResults: '50',
      })
      emu.clearRequests()
      const stats = await h.api<Rec[]>('GET', `/analytics/${conn}/property`, {
        query: { fields: 'id,raw.statistics' },
      })
      expect(sent('/youtube/v3/channels')[0]?.query.part).toBe('snippet,statistics')
      expect(stats.body[0]).toEqual({
        id: own().id,
        raw: { statistics: expect.objectContaining({ videoCount: '12' }) },
      })
    })

    it('gets a channel by id and answers 404 for one YouTube does not return', async () => {
      const res = await h.api<Rec>('GET', `/analytics/${conn}/property/${own().id}`, {
        query: { fields: 'id,name,raw' },
      })
      expect(res.body).toMatchObject({ id: own().id, name: own().title, raw: { kind: 'youtube#channel' } })
      const missing = await h.api('GET', `/analytics/${conn}/property/UCxxxxxxxxxxxxxxxxxxxxxx`)
      expect(missing.status).toBe(404)
    })

    it('refuses a raw paging parameter under its proto name as under its JSON name, and sends nothing', async () => {
      // Google reads `page_token` as `pageToken` (google/field-names.ts): either would replace Unigate's own.
      for (const [raw, readAs] of [
        ['pageToken=x', ''],
        ['page_token=x', "YouTube reads it as 'pageToken'"],
        ['maxResults=5', ''],
        ['max_results=5', "YouTube reads it as 'maxResults'"],
      ] as const) {
        const res = await h.api<Rec>('GET', `/analytics/${conn}/property`, { query: { raw } })
        expect(res.status, raw).toBe(400)
        expect(res.body.message).toBe(
          `raw: '${raw.split('=')[0]}' is set by Unigate for YouTube${readAs ? ` (${readAs})` : ''}; ` +
            'Unigate pages with limit and offset',
        )
      }
      expect(sent('/youtube/v3/channels')).toEqual([])
    })

    it('pages a content owner’s channels with remembered page tokens', async () => {
      const managed = emu.seed.channels.filter((c) => c.contentOwner).map((c) => c.id)
      const page = (offset: number) =>
        h.api<Rec[]>('GET', `/analytics/${partner}/property`, {
          query: { offset, limit: 20, fields: 'id,parent_id' },
        })
      const first = await page(40)
      expect(first.body.map((r) => r.id)).toEqual(managed.slice(40, 60))
      expect(first.body[0]?.parent_id).toBe('acmecms')
      expect(sent('/youtube/v3/channels').map((r) => r.query.onBehalfOfContentOwner)).toEqual([
        'acmecms',
        'acmecms',
      ])
      emu.clearRequests()
      await page(50)
      const calls = sent('/youtube/v3/channels')
      expect(calls).toHaveLength(1)
      expect(calls[0]?.query.pageToken).toBeDefined()
    })
  })

  describe('reports', () => {
    const q = { start_gte: '2024-05-01', end_lt: '2024-05-08' }

    it('reports per Pacific-Time day for the connection’s channel', async () => {
      const res = await h.api<Report[]>('GET', `/analytics/${conn}/report`, {
        query: { ...q, dimension: 'DATE', type: 'VIDEO_VIEWS,WATCH_TIME' },
      })
      expect(res.status).toBe(200)
      expect(res.body).toHaveLength(7)
      const [call] = sent('/v2/reports')
      expect(call?.query).toEqual({
        ids: `channel==${own().id}`,
        startDate: '2024-05-01',
        endDate: '2024-05-07',
        metrics: 'views,estimatedMinutesWatched',
        dimensions: 'day',
        sort: 'day',
        maxResults: '100',
        startIndex: '1',
      })
      expect(res.body[0]).toMatchObject({
        property_id: own().id,
        start_at: '2024-05-01T07:00:00.000Z',
        end_at: '2024-05-02T07:00:00.000Z',
      })
      expect(res.body[0]?.metrics.map((m) => [m.type, m.dimension_value])).toEqual([
        ['VIDEO_VIEWS', '2024-05-01'],
        ['WATCH_TIME', '2024-05-01'],
      ])
      expect(typeof res.body[0]?.metrics[0]?.value).toBe('number')
    })

    it('reads days before the year 1000 as those years, not as the 1900s', async () => {
      const res = await h.api<Report[]>('GET', `/analytics/${conn}/report`, {
        query: { start_gte: '0001-01-01', end_lt: '0001-01-03', dimension: 'DATE', type: 'VIDEO_VIEWS' },
      })
      expect(res.status).toBe(200)
      // Pacific Time's zone kept local mean time (UTC-7:52:58) until 1883.
      expect(res.body.map((r) => [r.start_at, r.end_at, r.metrics[0]?.dimension_value])).toEqual([
        ['0001-01-01T07:52:58.000Z', '0001-01-02T07:52:58.000Z', '0001-01-01'],
        ['0001-01-02T07:52:58.000Z', '0001-01-03T07:52:58.000Z', '0001-01-02'],
      ])
      expect(sent('/v2/reports')[0]?.query).toMatchObject({ startDate: '0001-01-01', endDate: '0001-01-02' })
    })

    it('pages with the 1-based startIndex', async () => {
      const all = await h.api<Report[]>('GET', `/analytics/${conn}/report`, {
        query: { ...q, dimension: 'DATE' },
      })
      const page = await h.api<Report[]>('GET', `/analytics/${conn}/report`, {
        query: { ...q, dimension: 'DATE', offset: 2, limit: 3 },
      })
      expect(page.body).toEqual(all.body.slice(2, 5))
      expect(sent('/v2/reports').at(-1)?.query).toMatchObject({ startIndex: '3', maxResults: '3' })
    })

    it('refuses a raw parameter Unigate sets on reports.query, under either of its names, and sends nothing', async () => {
      for (const [raw, why] of [
        ['startIndex=1', 'Unigate pages with limit and offset'],
        ['start_index=1', 'Unigate pages with limit and offset'],
        ['max_results=5', 'Unigate pages with limit and offset'],
        ['endDate=2024-05-02', 'use start_gte and end_lt'],
        ['ids=channel%3D%3DMINE', 'use property_id'],
        ['metrics=likes', 'use type'],
        ['dimensions=country', 'use dimension'],
        ['sort=day', 'Unigate orders the rows it pages with limit and offset'],
      ] as const) {
        const res = await h.api<Rec>('GET', `/analytics/${conn}/report`, { query: { ...q, raw } })
        expect(res.status, raw).toBe(400)
        expect(String(res.body.message)).toMatch(
          new RegExp(
            `^raw: '${decodeURIComponent(raw.split('=')[0] ?? '')}' is set by Unigate for YouTube.*; ${why}$`,
          ),
        )
      }
      expect(sent('/v2/reports')).toEqual([])
      // A parameter of reports.query that Unigate leaves alone still reaches it.
      const res = await h.api<Rec[]>('GET', `/analytics/${conn}/report`, {
        query: { ...q, raw: 'currency=EUR' },
      })
      expect(res.status).toBe(200)
      expect(sent('/v2/reports')[0]?.query).toMatchObject({ currency: 'EUR' })
    })

    it('reads a top-videos report larger than YouTube’s 200-row cap in several calls', async () => {
      const big = await startYoutubeEmulator({
        seed: 5,
        videosPerChannel: 400,
        factsPerDay: 60,
        authority: emu.authority,
      })
      try {
        const c = await h.api<{ id: string }>('POST', '/unified/connection', {
          body: { integration_type: 'youtube', auth: { access_token: token, api_url: big.url } },
        })
        const res = await h.api<Report[]>('GET', `/analytics/${c.body.id}/report`, {
          query: {
            start_gte: '2024-01-01',
            end_lt: '2024-03-01',
            dimension: 'VIDEO',
            type: 'VIDEO_VIEWS',
            limit: 300,
          },
        })
        expect(res.status).toBe(200)
        expect(res.body).toHaveLength(300)
        const calls = big.requests().filter((r) => r.path === '/v2/reports')
        expect(calls.map((r) => [r.query.startIndex, r.query.maxResults, r.query.sort])).toEqual([
          ['1', '200', '-views'],
          ['201', '100', '-views'],
        ])
        const views = res.body.map((r) => r.metrics[0]!.value)
        expect(views).toEqual([...views].sort((a, b) => b - a))
      } finally {
        await big.close()
      }
    })

    it('reports a content owner’s channel through contentOwner ids', async () => {
      const channel = emu.seed.channels[3]!.id
      const res = await h.api<Report[]>('GET', `/analytics/${partner}/report`, {
        query: { ...q, property_id: channel },
      })
      expect(res.status).toBe(200)
      expect(res.body[0]?.property_id).toBe(channel)
      expect(sent('/v2/reports')[0]?.query).toMatchObject({
        ids: 'contentOwner==acmecms',
        filters: `channel==${channel}`,
      })
    })

    it('reports whole months only', async () => {
      const ok = await h.api<Report[]>('GET', `/analytics/${conn}/report`, {
        query: { start_gte: '2024-01-01', end_lt: '2024-04-01', dimension: 'MONTH', type: 'VIDEO_VIEWS' },
      })
      expect(ok.body.map((r) => r.metrics[0]?.dimension_value)).toEqual(['2024-01', '2024-02', '2024-03'])
      expect(ok.body[1]).toMatchObject({
        start_at: '2024-02-01T08:00:00.000Z',
        end_at: '2024-03-01T08:00:00.000Z',
      })
      const partial = await h.api<Rec>('GET', `/analytics/${conn}/report`, {
        query: { start_gte: '2024-01-15', end_lt: '2024-04-01', dimension: 'MONTH' },
      })
      expect(partial.status).toBe(400)
      expect(String(partial.body.message)).toMatch(/whole months/)
    })

    it('refuses with 501 what YouTube cannot report, and passes its scope refusal on', async () => {
      const cases: [Rec, number, RegExp][] = [
        [{ type: 'SESSIONS' }, 501, /no metric for report type SESSIONS/],
        [{ dimension: 'DEVICE_TYPE', type: 'LIKES' }, 501, /cannot report LIKES by DEVICE_TYPE/],
        [{ dimension: 'BROWSER' }, 501, /cannot break reports down by BROWSER/],
        [{ property_id: 'acme' }, 400, /not a YouTube channel id/],
        [{ type: 'REVENUE' }, 403, /insufficient authentication scopes/],
      ]
      for (const [query, status, message] of cases) {
        const res = await h.api<Rec>('GET', `/analytics/${conn}/report`, {
          query: query as Record<string, string>,
        })
        expect(res.status, JSON.stringify(query)).toBe(status)
        expect(String(res.body.message)).toMatch(message)
      }
    })
  })

  describe('provider failures', () => {
    it('turns quotaExceeded 403s into 429 with a retry-after until midnight Pacific, without retrying', async () => {
      emu.state.setQuota({ analyticsQueriesPerDay: 0 })
      try {
        const res = await h.api<Rec>('GET', `/analytics/${conn}/report`)
        expect(res.status).toBe(429)
        const retryAfter = Number(res.headers['retry-after'])
        expect(retryAfter).toBeGreaterThan(0)
        expect(retryAfter).toBeLessThanOrEqual(25 * 3600)
        expect(sent('/v2/reports')).toHaveLength(1)
      } finally {
        emu.state.setQuota({ analyticsQueriesPerDay: 50_000 })
      }
      emu.fault({ status: 403, pathPattern: '^/youtube/v3/channels$' })
      const channels = await h.api('GET', `/analytics/${conn}/property`)
      expect(channels.status).toBe(429)
    })

    it('retries 429 and 5xx on reads, then answers 429 or 502', async () => {
      emu.fault({ status: 429, pathPattern: '^/v2/reports$' })
      expect((await h.api('GET', `/analytics/${conn}/report`)).status).toBe(200)
      expect(sent('/v2/reports')).toHaveLength(2)
      emu.clearRequests()
      emu.fault({ status: 503, pathPattern: '^/v2/reports$', times: 5 })
      expect((await h.api('GET', `/analytics/${conn}/report`)).status).toBe(502)
      expect(sent('/v2/reports')).toHaveLength(3)
      emu.clearFaults()
      emu.fault({ status: 429, pathPattern: '^/v2/reports$', times: 5 })
      expect((await h.api('GET', `/analytics/${conn}/report`)).status).toBe(429)
    })

    it('answers 403 with a re-authorize hint when the token expired', async () => {
      const short = emu.authority.issueTokens({ scopes: SCOPES }).access_token
      const c = await connect({ access_token: short })
      emu.authority.advance(3600)
      const res = await h.api<Rec>('GET', `/analytics/${c.body.id}/property`)
      expect(res.status).toBe(403)
      expect(String(res.body.message)).toMatch(/re-authorize/)
    })
  })
})
