import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startYoutubeEmulator, type YoutubeEmulator } from './index.js'

const S = 'https://www.googleapis.com/auth/'
let emu: YoutubeEmulator
let token: string
let partnerToken: string

/** The parts of YouTube's answers these tests read. */
interface Answer {
  kind: string
  items: { id: string; statistics: { viewCount: unknown } }[]
  nextPageToken?: string
  columnHeaders: unknown[]
  rows: unknown[][]
  error: { message: string; errors: { reason: string; location?: string }[] }
}

async function get(path: string, t: string | null = token) {
  const res = await request(`${emu.url}${path}`, { headers: t ? { authorization: `Bearer ${t}` } : {} })
  return { status: res.statusCode, body: (await res.body.json()) as Answer }
}

beforeAll(async () => {
  emu = await startYoutubeEmulator({ managedChannels: 3 })
  token = emu.authority.issueTokens({
    scopes: [`${S}youtube.readonly`, `${S}yt-analytics.readonly`],
  }).access_token
  partnerToken = emu.authority.issueTokens({
    scopes: [`${S}youtubepartner`, `${S}youtube.readonly`, `${S}yt-analytics.readonly`],
  }).access_token
})
afterAll(() => emu.close())

describe('channels.list', () => {
  it('answers the token’s own channel with string statistics', async () => {
    const res = await get('/youtube/v3/channels?part=snippet,statistics&mine=true')
    expect(res.status).toBe(200)
    expect(res.body.kind).toBe('youtube#channelListResponse')
    expect(res.body.items).toHaveLength(1)
    expect(res.body.items[0]?.id).toMatch(/^UC[\w-]{22}$/)
    expect(typeof res.body.items[0]?.statistics.viewCount).toBe('string')
  })

  it('requires part and exactly one filter, and bounds maxResults', async () => {
    expect((await get('/youtube/v3/channels?mine=true')).status).toBe(400)
    expect((await get('/youtube/v3/channels?part=snippet')).body.error.errors[0]?.reason).toBe(
      'missingRequiredParameter',
    )
    expect((await get('/youtube/v3/channels?part=snippet&mine=true&maxResults=51')).status).toBe(400)
    expect((await get('/youtube/v3/channels?part=nope&mine=true')).status).toBe(400)
  })

  it('pages a content owner’s channels and needs the partner scope for them', async () => {
    const path = '/youtube/v3/channels?part=id&managedByMe=true&onBehalfOfContentOwner=acmecms&maxResults=2'
    expect((await get(path)).status).toBe(403)
    const first = await get(path, partnerToken)
    expect(first.body.items).toHaveLength(2)
    const second = await get(`${path}&pageToken=${first.body.nextPageToken}`, partnerToken)
    expect(second.body.items).toHaveLength(1)
    expect(second.body.nextPageToken).toBeUndefined()
  })

  it('answers 401 with the legacy errors list for a missing token', async () => {
    const res = await get('/youtube/v3/channels?part=id&mine=true', null)
    expect(res.status).toBe(401)
    expect(res.body.error.errors[0]).toMatchObject({ reason: 'required', location: 'Authorization' })
  })
})

describe('reports.query', () => {
  const base = '/v2/reports?ids=channel==MINE&startDate=2024-05-01&endDate=2024-05-07'

  it('answers rows as arrays with numeric metrics', async () => {
    const res = await get(`${base}&metrics=views,averageViewPercentage&dimensions=day&sort=day`)
    expect(res.status).toBe(200)
    expect(res.body.columnHeaders[0]).toEqual({ name: 'day', columnType: 'DIMENSION', dataType: 'STRING' })
    expect(res.body.rows).toHaveLength(7)
    expect(res.body.rows[0]?.[0]).toBe('2024-05-01')
    expect(typeof res.body.rows[0]?.[1]).toBe('number')
  })

  it('ends at today in Pacific Time, not in UTC', async () => {
    // Pacific-Time days (https://developers.google.com/youtube/reporting/v1/reports/dimensions, `date`).
    const lastDay = async (at: string) => {
      const by = (Date.parse(at) - emu.authority.now()) / 1000
      emu.authority.advance(by)
      try {
        const q = '/v2/reports?ids=channel==MINE&startDate=2024-01-01&endDate=2024-12-31&metrics=views'
        return (await get(`${q}&dimensions=day&sort=day`)).body.rows.at(-1)?.[0]
      } finally {
        emu.authority.advance(-by)
      }
    }
    // 07:30 UTC on 15 January is 23:30 on the 14th in Los Angeles; 06:30 UTC on 2 July is 23:30 on the 1st.
    expect(await lastDay('2024-01-15T07:30:00Z')).toBe('2024-01-14')
    expect(await lastDay('2024-01-15T08:30:00Z')).toBe('2024-01-15')
    expect(await lastDay('2024-07-02T06:30:00Z')).toBe('2024-07-01')
  })

  it('pages with a 1-based startIndex', async () => {
    const all = await get(`${base}&metrics=views&dimensions=day&sort=day`)
    const page = await get(`${base}&metrics=views&dimensions=day&sort=day&startIndex=3&maxResults=2`)
    expect(page.body.rows).toEqual(all.body.rows.slice(2, 4))
    expect((await get(`${base}&metrics=views&startIndex=0`)).status).toBe(400)
  })

  it('refuses unknown names, unsupported combinations and partial months', async () => {
    const unknown = await get(`${base}&metrics=foo`)
    expect(unknown.body.error.message).toBe('Unknown identifier (foo) given in field parameters.metrics.')
    expect((await get(`${base}&metrics=likes&dimensions=deviceType`)).body.error.message).toMatch(
      /not supported/,
    )
    expect((await get(`${base}&metrics=views&dimensions=video`)).status).toBe(400)
    expect((await get(`${base}&metrics=views&dimensions=video&sort=-views&maxResults=10`)).status).toBe(200)
    expect((await get(`${base}&metrics=views&dimensions=month`)).status).toBe(400)
  })

  it('needs youtube.readonly besides an Analytics scope, as the reports.query reference says', async () => {
    const analyticsOnly = emu.authority.issueTokens({ scopes: [`${S}yt-analytics.readonly`] }).access_token
    const refused = await get(`${base}&metrics=views`, analyticsOnly)
    expect(refused.status).toBe(403)
    expect(refused.body.error.errors[0]?.reason).toBe('insufficientPermissions')
    expect((await get(`${base}&metrics=views`)).status).toBe(200)
  })

  it('needs the monetary scope for revenue and refuses other people’s channels', async () => {
    expect((await get(`${base}&metrics=estimatedRevenue`)).status).toBe(403)
    const other = emu.seed.channels[1]!.id
    expect(
      (await get(`/v2/reports?ids=channel==${other}&startDate=2024-05-01&endDate=2024-05-01&metrics=views`))
        .status,
    ).toBe(403)
  })

  it('answers 403 quotaExceeded once the daily queries are spent', async () => {
    emu.state.setQuota({ analyticsQueriesPerDay: 0 })
    try {
      const res = await get(`${base}&metrics=views`)
      expect(res.status).toBe(403)
      expect(res.body.error.errors[0]?.reason).toBe('quotaExceeded')
    } finally {
      emu.state.setQuota({ analyticsQueriesPerDay: 50_000 })
      emu.state.resetQuota()
    }
  })
})

describe('filters', () => {
  it('filters by continent with UN M.49 codes, as the dimensions page does (continent==150 is Europe)', async () => {
    const q =
      '/v2/reports?ids=channel==MINE&startDate=2024-05-01&endDate=2024-05-07&metrics=views&dimensions=country&sort=country'
    const europe = await get(`${q}&filters=continent==150`)
    expect(europe.status).toBe(200)
    const countries = europe.body.rows.map((r) => r[0])
    expect(countries.length).toBeGreaterThan(0)
    expect(countries.every((c) => c === 'FR' || c === 'DE')).toBe(true)
  })
})
