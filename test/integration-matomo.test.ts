import { describe, expect, it } from 'vitest'
import { DEFAULT_MATOMO_TOKEN, type MatomoEmulator, startMatomoEmulator } from '../emulators/matomo/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

/**
 * A Matomo manual zone (`UTC±h`) where it is about noon now, so visits of the last minutes and an action
 * tracked now share a site day (a visit does not continue past the site's midnight).
 */
function noonZone(): string {
  const offset = 12 - new Date().getUTCHours()
  return `UTC${offset >= 0 ? '+' : ''}${offset}`
}

type Rec = Record<string, unknown>

/** A view-only user's token, with access to site 1 only. */
const VIEWER = 'beef0000beef0000beef0000beef0000'

/** The UTC instant (ms) a calendar day starts in a zone, by Intl (independent of the connector's code). */
function startOfDay(day: string, timeZone: string): number {
  const utc = Date.parse(`${day}T00:00:00Z`)
  let guess = utc
  for (let i = 0; i < 3; i++) {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
      })
        .formatToParts(new Date(guess))
        .map((p) => [p.type, p.value]),
    )
    const local = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!)
    guess = utc - (local - guess)
  }
  return guess
}

describe('Matomo through Unigate', () => {
  let h: Harness
  let emu: MatomoEmulator
  let conn: string
  const base = () => `/analytics/${conn}`
  const api = (path: string) => emu.requests().filter((r) => r.path === path)
  /** The Reporting API calls received, with the method and the merged form + query parameters. */
  const calls = (method?: string) =>
    api('/index.php')
      .map((r) => ({ ...(r.query as Rec), ...(r.body as Rec) }) as Record<string, string>)
      .filter((c) => method === undefined || c.method === method)

  useEmulatorSuite({
    start: () =>
      startMatomoEmulator({ seed: 3, sites: 3, visitsPerSite: 80, viewTokens: { [VIEWER]: ['1'] } }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'matomo',
        auth: { token_auth: DEFAULT_MATOMO_TOKEN, api_url: emu.url },
      })
    },
  })

  it('sends the token in the POST body, never in the URL, and refuses a token Matomo rejects', async () => {
    expect((await h.api('GET', `${base()}/property`)).status).toBe(200)
    const [call] = api('/index.php')
    expect(call?.method).toBe('POST')
    expect(call?.query).toMatchObject({
      module: 'API',
      method: 'SitesManager.getSitesWithAtLeastViewAccess',
      format: 'JSON',
    })
    expect(call?.query.token_auth).toBeUndefined()
    expect((call!.body as Rec).token_auth).toBe(DEFAULT_MATOMO_TOKEN)
    const bad = await h.api<Rec>('POST', '/unified/connection', {
      body: { integration_type: 'matomo', auth: { token_auth: 'f'.repeat(32), api_url: emu.url } },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('Unable to authenticate')
  })

  it('creates, reads, updates, lists and removes a site', async () => {
    const created = await h.api<Rec>('POST', `${base()}/property`, {
      body: {
        name: 'Shop',
        timezone: 'Europe/Paris',
        currency: 'EUR',
        raw: { urls: ['https://shop.example'] },
      },
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ name: 'Shop', timezone: 'Europe/Paris', currency: 'EUR' })
    const id = created.body.id as string
    expect(calls('SitesManager.addSite')[0]).toMatchObject({
      siteName: 'Shop',
      'urls[0]': 'https://shop.example',
    })
    const patched = await h.api<Rec>('PATCH', `${base()}/property/${id}`, {
      body: { name: 'Shop EU', parent_id: 'EU' },
    })
    expect(patched.body).toMatchObject({ id, name: 'Shop EU', parent_id: 'EU', timezone: 'Europe/Paris' })
    const inGroup = await h.api<Rec[]>('GET', `${base()}/property`, { query: { parent_id: 'EU' } })
    expect(inGroup.body.map((p) => p.id)).toEqual([id])
    const found = await h.api<Rec[]>('GET', `${base()}/property`, { query: { query: 'shop eu' } })
    expect(found.body.map((p) => p.id)).toEqual([id])
    expect((await h.api('DELETE', `${base()}/property/${id}`)).status).toBe(200)
    expect((await h.api('GET', `${base()}/property/${id}`)).status).toBe(404)
  })

  it('pages sites with offset and limit', async () => {
    const all = (await h.api<Rec[]>('GET', `${base()}/property`)).body.map((p) => p.id)
    expect(all).toEqual([...emu.state.sites.keys()])
    const page = await h.api<Rec[]>('GET', `${base()}/property`, {
      query: { offset: 1, limit: 1, fields: 'id,name' },
    })
    expect(page.body).toEqual([{ id: all[1], name: emu.state.sites.get(String(all[1]))?.name }])
  })

  it('lists sessions page by page exactly as Matomo orders visits', async () => {
    const visits = emu.state.visitsOf('1')
    const pages: Rec[] = []
    for (let offset = 0; offset < 75; offset += 25) {
      const res = await h.api<Rec[]>('GET', `${base()}/session`, {
        query: { property_id: '1', offset, limit: 25 },
      })
      expect(res.status).toBe(200)
      pages.push(...res.body)
    }
    expect(pages.map((s) => s.id)).toEqual(visits.slice(0, 75).map((v) => `1:${v.idVisit}`))
    // Matomo is never given an offset: its windowed offsets skip visits (see the next test).
    expect(calls('Live.getLastVisitsDetails').map((c) => [c.filter_offset, c.filter_limit])).toEqual([
      ['0', '25'],
      ['0', '50'],
      ['0', '75'],
    ])
    const first = pages[0] as Rec
    expect(first).toMatchObject({ property_id: '1', visitor_id: `1:${visits[0]?.visitorId}` })
    expect(typeof first.start_at).toBe('string')
    expect(first.raw).toBeUndefined()
  })

  it("lists every session page by page where Matomo's own filter_offset would skip visits", async () => {
    // Five visits in the last 7 days and five older: Matomo pages those with filter_offset across time
    // windows and skips two of the older ones at offset 6 (see emulators/matomo/api/live-windows.ts).
    const site = emu.state.addSite({ siteName: 'Paged' })
    const idSite = String(site.idsite)
    const now = Math.floor(Date.now() / 1000)
    const r = emu.state.nextRandom(11)
    for (const daysAgo of [1, 2, 3, 4, 5, 20, 21, 22, 23, 24]) {
      emu.state.insertVisit(emu.state.newVisit(r, idSite, '0123456789abcdef', now - daysAgo * 86_400, 2))
    }
    const got: unknown[] = []
    for (let offset = 0; offset < 12; offset += 2) {
      const res = await h.api<Rec[]>('GET', `${base()}/session`, {
        query: { property_id: idSite, offset, limit: 2 },
      })
      expect(res.status).toBe(200)
      got.push(...res.body.map((s) => s.id))
    }
    expect(got).toEqual(emu.state.visitsOf(idSite).map((v) => `${idSite}:${v.idVisit}`))
    const events = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { property_id: idSite, offset: 12, limit: 4 },
    })
    expect(events.body.map((e) => e.id)).toEqual(
      emu.state
        .visitsOf(idSite)
        .flatMap((v) => v.actionDetails.map((_, i) => `${idSite}:${v.idVisit}:${i}`))
        .slice(12, 16),
    )
  })

  describe('while a listed visit gets a new action between page reads', () => {
    /**
     * A site with eight visits of two actions each, the last a few minutes ago, each its own visitor;
     * `track` records a new action in one of them through the Tracking API, which moves it to the front
     * of Live's list (the end, oldest first).
     */
    async function busySite() {
      const site = emu.state.addSite({ siteName: 'Busy', timezone: noonZone() })
      const idSite = String(site.idsite)
      const now = Math.floor(Date.now() / 1000)
      const r = emu.state.nextRandom(808)
      for (let i = 0; i < 8; i++) {
        const visitor = `00000000000000${String(i).padStart(2, '0')}`
        emu.state.insertVisit(emu.state.newVisit(r, idSite, visitor, now - 600 + i * 60, 2))
      }
      const track = async (idVisit: string) => {
        // In a later second than the page just read: Matomo's times are whole seconds.
        await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5))
        const visit = emu.state.visitsOf(idSite).find((v) => v.idVisit === idVisit)!
        const res = await fetch(`${emu.url}/matomo.php`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            requests: [`?idsite=${idSite}&rec=1&cid=${visit.visitorId}&url=https%3A%2F%2Fbusy.example%2Fnew`],
            token_auth: DEFAULT_MATOMO_TOKEN,
          }),
        })
        expect(await res.json()).toMatchObject({ tracked: 1 })
        expect(visit.actionDetails).toHaveLength(3)
      }
      return { idSite, track }
    }

    it.each([['desc'], ['asc']])('lists each session once, %s', async (order) => {
      const { idSite, track } = await busySite()
      const before = emu.state.visitsOf(idSite).map((v) => `${idSite}:${v.idVisit}`)
      const expected = order === 'asc' ? [...before].reverse() : before
      const page = async (offset: number) => {
        const res = await h.api<Rec[]>('GET', `${base()}/session`, {
          query: { property_id: idSite, offset, limit: 3, order },
        })
        expect(res.status).toBe(200)
        return res.body.map((s) => String(s.id))
      }
      const got = await page(0)
      // The visit Live lists sixth (newest first) or third (oldest first) takes a new action.
      const moved = (expected[order === 'asc' ? 2 : 5] as string).split(':')[1] as string
      await track(moved)
      expect(emu.state.visitsOf(idSite)[0]?.idVisit).toBe(moved)
      got.push(...(await page(3)), ...(await page(6)))
      expect(got).toEqual(expected)
    })

    it('misses no session or event when a visit already listed is deleted between page reads, and asks to start again when the last one listed is', async () => {
      const { idSite } = await busySite()
      const visits = emu.state.visitsOf(idSite).map((v) => v.idVisit)
      const ids = async (object: 'session' | 'event', offset: number, limit: number) => {
        const res = await h.api<Rec[]>('GET', `${base()}/${object}`, {
          query: { property_id: idSite, offset, limit },
        })
        expect(res.status, res.text).toBe(200)
        return res.body.map((r) => String(r.id))
      }
      const sessions = await ids('session', 0, 3)
      // Three events: visits 0 and the first action of visit 1 (two actions each).
      const events = await ids('event', 0, 3)
      // The GDPR tool deletes the newest visit, listed on both first pages.
      emu.state.deleteVisit(idSite, visits[0] as string)
      sessions.push(...(await ids('session', 3, 3)))
      events.push(...(await ids('event', 3, 3)))
      expect(sessions).toEqual(visits.slice(0, 6).map((v) => `${idSite}:${v}`))
      expect(events).toEqual(visits.slice(0, 3).flatMap((v) => [0, 1].map((i) => `${idSite}:${v}:${i}`)))
      // The visit the last session page ended with is deleted: that list cannot go on where it was.
      emu.state.deleteVisit(idSite, visits[5] as string)
      const next = await h.api<{ message: string; error: string }>('GET', `${base()}/session`, {
        query: { property_id: idSite, offset: 6, limit: 3 },
      })
      expect(next.status).toBe(409)
      expect(next.body).toMatchObject({ statusCode: 409, error: 'Conflict' })
      expect(next.body.message).toContain('from offset 0')
    })

    it('lists each event once, and none the visit got after the first page', async () => {
      const { idSite, track } = await busySite()
      const expected = emu.state
        .visitsOf(idSite)
        .flatMap((v) => v.actionDetails.map((_, i) => `${idSite}:${v.idVisit}:${i}`))
      const page = async (offset: number) => {
        const res = await h.api<Rec[]>('GET', `${base()}/event`, {
          query: { property_id: idSite, offset, limit: 5 },
        })
        expect(res.status).toBe(200)
        return res.body.map((e) => String(e.id))
      }
      const got = await page(0)
      await track(emu.state.visitsOf(idSite)[5]?.idVisit as string)
      for (let offset = 5; offset < 20; offset += 5) got.push(...(await page(offset)))
      expect(got).toEqual(expected)
    })
  })

  it('filters sessions by visitor and source at Matomo, and by start time exactly', async () => {
    const visits = emu.state.visitsOf('1')
    const visitor = visits[0]?.visitorId as string
    const byVisitor = await h.api<Rec[]>('GET', `${base()}/session`, {
      query: { visitor_id: `1:${visitor}` },
    })
    expect(byVisitor.body.map((s) => s.id)).toEqual(
      visits.filter((v) => v.visitorId === visitor).map((v) => `1:${v.idVisit}`),
    )
    expect(calls('Live.getLastVisitsDetails')[0]?.segment).toBe(`visitorId==${visitor}`)
    const bySource = await h.api<Rec[]>('GET', `${base()}/session`, {
      query: { property_id: '1', source: 'news.ycombinator.com', medium: 'website', limit: 1000 },
    })
    expect(bySource.body.map((s) => s.id)).toEqual(
      visits.filter((v) => v.referrerName === 'news.ycombinator.com').map((v) => `1:${v.idVisit}`),
    )
    expect(bySource.body.length).toBeGreaterThan(0)
    expect(calls('Live.getLastVisitsDetails')[1]?.segment).toBe(
      'referrerName==news.ycombinator.com;referrerType==website',
    )
    const middle = visits[40]?.firstActionTimestamp as number
    const start = new Date(middle * 1000).toISOString()
    const recent = await h.api<Rec[]>('GET', `${base()}/session`, {
      query: { property_id: '1', start_gte: start, limit: 1000, fields: 'id,start_at' },
    })
    const expected = visits.filter((v) => v.firstActionTimestamp >= middle).map((v) => `1:${v.idVisit}`)
    expect(recent.body.map((s) => s.id)).toEqual(expected)
    for (const s of recent.body) expect(Date.parse(String(s.start_at))).toBeGreaterThanOrEqual(middle * 1000)
  })

  it('counts every action of a visit the visitor log truncates, and leaves out what it cannot know', async () => {
    // Live keeps a visit's first 500 actions and says how many it left out (truncatedActionsCount).
    const r = emu.state.nextRandom(503)
    const visit = emu.state.newVisit(
      r,
      '3',
      'fedcba9876543210',
      Date.parse('2024-05-12T08:00:00Z') / 1000,
      505,
    )
    emu.state.insertVisit(visit)
    const res = await h.api<Rec>('GET', `${base()}/session/3:${visit.idVisit}`)
    expect(res.status).toBe(200)
    expect(res.body.events_count).toBe(505)
    expect(res.body).not.toHaveProperty('page_views')
    expect(res.body).not.toHaveProperty('exit_page')
    expect(res.body.landing_page).toBe(visit.actionDetails.find((a) => a.type === 'action')?.url)
  })

  it('fails an event list reaching into the actions the visitor log leaves out, naming the setting', async () => {
    const site = emu.state.addSite({ siteName: 'Busy', timezone: noonZone() })
    const idSite = String(site.idsite)
    const startS = Date.parse('2024-05-20T08:00:00Z') / 1000
    const visit = emu.state.newVisit(emu.state.nextRandom(509), idSite, '00112233aabbccdd', startS, 505)
    emu.state.insertVisit(visit)
    const cut = await h.api<Rec>('GET', `${base()}/event`, { query: { property_id: idSite, limit: 10 } })
    expect(cut.status).toBe(502)
    expect(cut.body.message).toContain('visitor_log_maximum_actions_per_visit')
    // A window that ends before the 500th action is complete: Live lists every action in it.
    const listed = visit.actionDetails[499]?.timestamp as number
    const early = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        property_id: idSite,
        start_gte: new Date(startS * 1000).toISOString(),
        end_lt: new Date(listed * 1000).toISOString(),
        limit: 1000,
      },
    })
    expect(early.status).toBe(200)
    expect(early.body).toHaveLength(499)
  })

  it('gets a session by its composite id, and answers 404 for an unknown one', async () => {
    const visit = emu.state.visitsOf('2')[3]
    const res = await h.api<Rec>('GET', `${base()}/session/2:${visit?.idVisit}`, {
      query: { fields: 'id,raw' },
    })
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(`2:${visit?.idVisit}`)
    expect((res.body.raw as Rec).idVisit).toBe(visit?.idVisit)
    expect(calls('Live.getLastVisitsDetails')[0]).toMatchObject({
      idSite: '2',
      segment: `visitId==${visit?.idVisit}`,
    })
    expect((await h.api('GET', `${base()}/session/2:999999`)).status).toBe(404)
    expect((await h.api('GET', `${base()}/session/nonsense`)).status).toBe(404)
  })

  it('lists events (visit actions) across pages, reading each visit page about once', async () => {
    const visits = emu.state.visitsOf('1')
    const all = visits.flatMap((v) => (v.actionDetails ?? []).map((_, i) => `1:${v.idVisit}:${i}`))
    const got: string[] = []
    for (let offset = 0; offset < 120; offset += 30) {
      const res = await h.api<Rec[]>('GET', `${base()}/event`, {
        query: { property_id: '1', offset, limit: 30 },
      })
      expect(res.status).toBe(200)
      got.push(...res.body.map((e) => String(e.id)))
    }
    expect(got).toEqual(all.slice(0, 120))
    // Remembered positions: each page starts where the last one ended instead of walking from the first
    // visit; Matomo itself is never given an offset (its windowed offsets skip visits).
    const live = calls('Live.getLastVisitsDetails')
    expect(live.every((c) => c.filter_offset === '0')).toBe(true)
    expect(live.length).toBeLessThanOrEqual(12)
  })

  it('filters events by type and time on our side, exactly', async () => {
    const visits = emu.state.visitsOf('1')
    const pageviews = visits.flatMap((v) =>
      (v.actionDetails ?? []).flatMap((a, i) => (a.type === 'action' ? [`1:${v.idVisit}:${i}`] : [])),
    )
    const res = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { property_id: '1', type: 'PAGE_VIEW', limit: 40, offset: 10 },
    })
    expect(res.body.map((e) => e.id)).toEqual(pageviews.slice(10, 50))
    expect(res.body.every((e) => e.event_type === 'PAGE_VIEW')).toBe(true)
    expect(
      (await h.api('GET', `${base()}/event`, { query: { property_id: '1', type: 'NOPE' } })).status,
    ).toBe(400)
  })

  it("gives events their UTC instant on a site whose Live action times are on the site's clock", async () => {
    // Site 2 is in America/New_York: Live writes action timestamps as UTC minus four or five hours.
    expect(emu.state.sites.get('2')?.timezone).toBe('America/New_York')
    const visit = emu.state.visitsOf('2')[1]!
    const action = visit.actionDetails[1]!
    const got = await h.api<Rec>('GET', `${base()}/event/2:${visit.idVisit}:1`)
    expect(got.body.created_at).toBe(new Date(action.timestamp * 1000).toISOString())
    // The time window is applied to the same instants: an event at exactly start_gte is in.
    const listed = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: {
        property_id: '2',
        start_gte: new Date(action.timestamp * 1000).toISOString(),
        end_lt: new Date(action.timestamp * 1000 + 1000).toISOString(),
        limit: 100,
      },
    })
    expect(listed.body.map((e) => e.id)).toContain(`2:${visit.idVisit}:1`)
    expect(listed.body.every((e) => e.created_at === got.body.created_at)).toBe(true)
  })

  it('gives events in the hour repeated when daylight saving ends the instant inside their visit', async () => {
    // Europe/Berlin, 27 October 2024: the wall clock reads 02:00-03:00 twice (CEST, then CET), and Live
    // writes action times on that clock; the visit runs from 00:40 to 01:25 UTC.
    const site = emu.state.addSite({ siteName: 'Berlin', timezone: 'Europe/Berlin' })
    const idSite = String(site.idsite)
    const times = ['00:40', '00:55', '01:10', '01:25'].map((hm) => Date.parse(`2024-10-27T${hm}:00Z`))
    const visit = emu.state.newVisit(
      emu.state.nextRandom(1027),
      idSite,
      '0123456789abcdef',
      times[0]! / 1000,
      4,
    )
    visit.actionDetails.forEach((a, i) => {
      a.timestamp = times[i]! / 1000
    })
    emu.state.refresh(visit)
    emu.state.insertVisit(visit)
    const listed = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { property_id: idSite, session_id: `${idSite}:${visit.idVisit}` },
    })
    expect(listed.status).toBe(200)
    expect(listed.body.map((e) => e.created_at)).toEqual(times.map((t) => new Date(t).toISOString()))
    const one = await h.api<Rec>('GET', `${base()}/event/${idSite}:${visit.idVisit}:0`)
    expect(one.body.created_at).toBe(new Date(times[0]!).toISOString())
  })

  it('refuses a click, download or search Matomo would record as a page view, before sending it', async () => {
    for (const [event_type, missing] of [
      ['CLICK', 'page_url'],
      ['FILE_DOWNLOAD', 'page_url'],
      ['SEARCH', 'name'],
    ] as const) {
      const res = await h.api<Rec>('POST', `${base()}/event`, {
        body: { property_id: '1', event_type, visitor_id: '1:0a0b0c0d0e0f0a0b', page_title: 'x' },
      })
      expect(res.status, event_type).toBe(400)
      expect(res.body.message).toContain(missing)
    }
    expect(api('/matomo.php')).toHaveLength(0)
  })

  it('gets one event, and records a new one under the id list and get give it', async () => {
    const visit = emu.state.visitsOf('1')[0]
    const one = await h.api<Rec>('GET', `${base()}/event/1:${visit?.idVisit}:0`)
    expect(one.body).toMatchObject({ id: `1:${visit?.idVisit}:0`, session_id: `1:${visit?.idVisit}` })
    const created = await h.api<Rec>('POST', `${base()}/event`, {
      body: {
        property_id: '1',
        event_type: 'PAGE_VIEW',
        page_url: 'https://example.com/new',
        page_title: 'New page',
        visitor_id: '1:00112233aabbccdd',
      },
    })
    expect(created.status, created.text).toBe(200)
    const [tracking] = api('/matomo.php')
    const sent = Object.fromEntries(
      new URLSearchParams(String(((tracking!.body as Rec).requests as string[])[0]).slice(1)),
    )
    expect(sent).toMatchObject({
      idsite: '1',
      rec: '1',
      url: 'https://example.com/new',
      cid: '00112233aabbccdd',
    })
    expect(sent.pv_id).toMatch(/^[0-9a-zA-Z]{6}$/)
    // The id is Matomo's visit and the action's place in it, as list and get derive it.
    const stored = emu.state.visitsOf('1').find((v) => v.visitorId === '00112233aabbccdd')
    const index = stored?.actionDetails.findIndex((a) => a.idpageview === sent.pv_id)
    expect(created.body).toMatchObject({
      id: `1:${stored?.idVisit}:${index}`,
      session_id: `1:${stored?.idVisit}`,
      visitor_id: '1:00112233aabbccdd',
      event_type: 'PAGE_VIEW',
      page_url: 'https://example.com/new',
    })
    const got = await h.api<Rec>('GET', `${base()}/event/${created.body.id}`)
    expect(got.status).toBe(200)
    expect(got.body).toEqual(created.body)
    const listed = await h.api<Rec[]>('GET', `${base()}/event`, {
      query: { visitor_id: '1:00112233aabbccdd' },
    })
    expect(listed.body.map((e) => e.id)).toContain(created.body.id)
  })

  it('keeps events created for different visitors from one server apart, and gives an anonymous one its own visitor', async () => {
    // Tracked from one server, visitors differ only by id: with the cookie id `_id`, Matomo would add the
    // second to the first one's visit (config-id match) and hand that visit to the second visitor; the
    // forced `cid` keeps them apart.
    const ids: string[] = []
    for (const visitor of ['1:aaaaaaaaaaaaaaa1', '1:aaaaaaaaaaaaaaa2']) {
      const res = await h.api<Rec>('POST', `${base()}/event`, {
        body: {
          property_id: '1',
          event_type: 'CLICK',
          page_url: 'https://example.com/out',
          visitor_id: visitor,
        },
      })
      expect(res.status, res.text).toBe(200)
      expect(res.body.visitor_id).toBe(visitor)
      ids.push(String(res.body.id))
    }
    expect(new Set(ids.map((id) => id.split(':')[1])).size).toBe(2)
    const first = await h.api<Rec>('GET', `${base()}/event/${ids[0]}`)
    expect(first.body.visitor_id).toBe('1:aaaaaaaaaaaaaaa1')
    const anonymous = await h.api<Rec>('POST', `${base()}/event`, {
      body: { property_id: '1', name: 'Signed up', value: 3 },
    })
    expect(anonymous.status, anonymous.text).toBe(200)
    expect(anonymous.body).toMatchObject({ event_type: 'CUSTOM', value: 3 })
    expect(String(anonymous.body.visitor_id)).toMatch(/^1:[0-9a-f]{16}$/)
    expect((await h.api<Rec>('GET', `${base()}/event/${anonymous.body.id}`)).body.id).toBe(anonymous.body.id)
  })

  it('finds an order by its order id and a past event by its time, and reads them back', async () => {
    const order = await h.api<Rec>('POST', `${base()}/event`, {
      body: { property_id: '2', event_type: 'PURCHASE', value: 42, visitor_id: 'shopper@example.com' },
    })
    expect(order.status, order.text).toBe(200)
    expect(order.body).toMatchObject({ event_type: 'PURCHASE', value: 42 })
    expect((await h.api<Rec>('GET', `${base()}/event/${order.body.id}`)).body.id).toBe(order.body.id)
    const past = await h.api<Rec>('POST', `${base()}/event`, {
      body: {
        property_id: '2',
        event_type: 'PAGE_VIEW',
        page_url: 'https://example.com/then',
        visitor_id: '2:0123456789abcdef',
        created_at: '2024-05-20T10:00:00Z',
      },
    })
    expect(past.status, past.text).toBe(200)
    expect(past.body).toMatchObject({
      page_url: 'https://example.com/then',
      created_at: '2024-05-20T10:00:00.000Z',
    })
    expect((await h.api<Rec>('GET', `${base()}/event/${past.body.id}`)).body.id).toBe(past.body.id)
  })

  it('says so when Matomo accepted an event it does not list, rather than answering an id that does not exist', async () => {
    // As with QueuedTracking: the request is accepted, the visit log does not have it yet.
    const original = emu.state.insertVisit.bind(emu.state)
    emu.state.insertVisit = () => undefined
    try {
      const res = await h.api<Rec>('POST', `${base()}/event`, {
        body: {
          property_id: '3',
          event_type: 'PAGE_VIEW',
          page_url: 'https://example.com/q',
          visitor_id: '3:0000000000abcdef',
        },
      })
      expect(res.status).toBe(502)
      expect(res.body.message).toContain('do not send it again')
    } finally {
      emu.state.insertVisit = original
    }
  })

  it('reads a visitor profile, and 404s an unknown visitor', async () => {
    const visitorId = emu.state.visitsOf('1')[0]?.visitorId as string
    const visits = emu.state.visitsOf('1').filter((v) => v.visitorId === visitorId)
    const res = await h.api<Rec>('GET', `${base()}/visitor/1:${visitorId}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: `1:${visitorId}`, property_id: '1', total_sessions: visits.length })
    expect((await h.api('GET', `${base()}/visitor/1:0000000000000000`)).status).toBe(404)
    expect((await h.api('GET', `${base()}/visitor`)).status).toBe(501)
  })

  it('reads first_seen_at from the first action time and the country from the most visits', async () => {
    // Live.getVisitorProfile: firstVisit.date is a unix time, countries sort ascending by visits
    // (matomo-org/matomo plugins/Live/VisitorDetails.php, plugins/UserCountry/VisitorDetails.php).
    const r = emu.state.nextRandom(501)
    const visitorId = '0123456789abcdef'
    const t0 = Date.parse('2024-05-10T08:30:00Z') / 1000
    ;['jp', 'fr', 'fr', 'fr'].forEach((country, i) => {
      const v = emu.state.newVisit(r, '3', visitorId, t0 + i * 86_400, 2)
      v.countryCode = country
      v.country = country === 'fr' ? 'France' : 'Japan'
      emu.state.insertVisit(v)
    })
    const res = await h.api<Rec>('GET', `${base()}/visitor/3:${visitorId}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      first_seen_at: '2024-05-10T08:30:00.000Z',
      country_code: 'FR',
      country: 'France',
      total_sessions: 4,
    })
  })

  it('deletes every visit of a visitor with more than the 401 visits one GDPR find returns', async () => {
    const r = emu.state.nextRandom(502)
    const visitorId = 'fedcba9876543210'
    const t0 = Date.parse('2024-05-01T00:00:00Z') / 1000
    for (let i = 0; i < 450; i++)
      emu.state.insertVisit(emu.state.newVisit(r, '3', visitorId, t0 + i * 3600, 1))
    const res = await h.api('DELETE', `${base()}/visitor/3:${visitorId}`)
    expect(res.status).toBe(200)
    expect(emu.state.visitsOf('3').filter((v) => v.visitorId === visitorId)).toHaveLength(0)
    expect(calls('PrivacyManager.findDataSubjects')).toHaveLength(3)
    expect(calls('PrivacyManager.deleteDataSubjects')).toHaveLength(2)
  })

  it('does not answer success when Matomo keeps a visit it was told to delete', async () => {
    const visitorId = emu.state.visitsOf('3')[2]?.visitorId as string
    // Deletion that removes nothing: the same visits come back from the next find.
    const original = emu.state.deleteVisit.bind(emu.state)
    emu.state.deleteVisit = () => undefined
    try {
      const res = await h.api<Rec>('DELETE', `${base()}/visitor/3:${visitorId}`)
      expect(res.status).toBe(502)
      expect(res.body.message).toContain('not fully deleted')
    } finally {
      emu.state.deleteVisit = original
    }
  })

  it('deletes a visitor with the GDPR tool: all their visits go', async () => {
    const visitorId = emu.state.visitsOf('2')[5]?.visitorId as string
    const ids = emu.state
      .visitsOf('2')
      .filter((v) => v.visitorId === visitorId)
      .map((v) => v.idVisit)
    expect((await h.api('DELETE', `${base()}/visitor/2:${visitorId}`)).status).toBe(200)
    const [find] = calls('PrivacyManager.findDataSubjects')
    expect(find).toMatchObject({ idSite: '2', segment: `visitorId==${visitorId}` })
    const [del] = calls('PrivacyManager.deleteDataSubjects')
    expect(ids.map((_, i) => del?.[`visits[${i}][idvisit]`]).sort()).toEqual([...ids].sort())
    expect(emu.state.visitsOf('2').some((v) => v.visitorId === visitorId)).toBe(false)
    expect((await h.api('GET', `${base()}/visitor/2:${visitorId}`)).status).toBe(404)
    expect((await h.api('DELETE', `${base()}/visitor/2:${visitorId}`)).status).toBe(404)
  })

  it('reports totals, a daily series and a country breakdown for whole site days', async () => {
    const window = { property_id: '1', start_gte: emu.state.firstDay, end_lt: emu.state.dayAfterLast }
    // The seeded visits (an event tracked by another test happened today, outside the window).
    const seeded = emu.state
      .visitsOf('1')
      .filter((v) => v.lastActionTimestamp * 1000 < Date.parse(window.end_lt))
    const totals = await h.api<Rec[]>('GET', `${base()}/report`, { query: window })
    expect(totals.status).toBe(200)
    const metrics = (totals.body[0]?.metrics ?? []) as Rec[]
    expect(metrics).toContainEqual({ type: 'SESSIONS', value: seeded.length })
    expect(metrics.find((m) => m.type === 'PAGE_VIEWS')?.value).toBe(
      seeded.flatMap((v) => (v.actionDetails ?? []).filter((a) => a.type === 'action')).length,
    )
    const [bulk] = calls('API.getBulkRequest')
    expect(bulk?.['urls[0]']).toContain('method=VisitsSummary.get')
    expect(bulk?.['urls[0]']).toContain('format_metrics=0')
    const daily = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'DATE', type: 'SESSIONS' },
    })
    const days = daily.body[0]?.metrics as Rec[]
    expect(days.every((m) => m.dimension === 'DATE' && m.type === 'SESSIONS')).toBe(true)
    expect(days.reduce((a, m) => a + Number(m.value), 0)).toBe(seeded.length)
    const countries = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'COUNTRY' },
    })
    const rows = (countries.body[0]!.metrics as Rec[]).filter((m) => m.type === 'SESSIONS')
    expect(rows.every((m) => /^[A-Z]{2}$/.test(String(m.dimension_value)))).toBe(true)
    expect(rows.reduce((a, m) => a + Number(m.value), 0)).toBe(seeded.length)
  })

  it('reports zeros for days without visits, as for any day, not a missing metric or a 501', async () => {
    // Matomo answers a period without visits with an empty list (core/API/ResponseBuilder.php).
    const quiet = { property_id: '1', start_gte: '2019-03-01', end_lt: '2019-03-04' }
    const totals = await h.api<Rec[]>('GET', `${base()}/report`, { query: quiet })
    expect(totals.status).toBe(200)
    expect(totals.body[0]?.metrics).toEqual(
      expect.arrayContaining([
        { type: 'SESSIONS', value: 0 },
        { type: 'PAGE_VIEWS', value: 0 },
        { type: 'BOUNCE_RATE', value: 0 },
      ]),
    )
    const sessions = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...quiet, type: 'SESSIONS' } })
    expect(sessions.status, JSON.stringify(sessions.body)).toBe(200)
    expect(sessions.body[0]?.metrics).toEqual([{ type: 'SESSIONS', value: 0 }])
    // A daily series over days with and without visits has every day.
    const last = emu.state.firstDay
    const first = new Date(Date.parse(last) - 3 * 86_400_000).toISOString().slice(0, 10)
    const next = new Date(Date.parse(last) + 86_400_000).toISOString().slice(0, 10)
    const daily = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { property_id: '1', start_gte: first, end_lt: next, dimension: 'DATE', type: 'SESSIONS' },
    })
    expect(daily.status).toBe(200)
    const days = ((daily.body[0]?.metrics ?? []) as Rec[]).map((m) => [m.dimension_value, m.value === 0])
    expect(days.map(([d]) => d)).toEqual(
      [0, 1, 2, 3].map((i) => new Date(Date.parse(first) + i * 86_400_000).toISOString().slice(0, 10)),
    )
    expect(days.slice(0, 3).every(([, zero]) => zero)).toBe(true)
  })

  it('refuses a series longer than Matomo serves by count, naming the window and the longest one, before asking', async () => {
    // Matomo caps a `lastN` series at 5 × 365 days, 10 × 52 weeks, 10 × 12 months, 10 years
    // (core/Period/Range.php getMaxN) but archives every period of `date=a,b`, however many.
    const allTime = { property_id: '1', start_gte: '1992-01-01', end_lt: '9999-12-31' }
    for (const [dimension, longest] of [
      ['DATE', '1825 days'],
      ['WEEK', '520 weeks'],
      ['MONTH', '120 months'],
      ['YEAR', '10 years'],
    ] as const) {
      const res = await h.api<Rec>('GET', `${base()}/report`, { query: { ...allTime, dimension } })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('start_gte/end_lt')
      expect(res.body.message).toContain(`at most ${longest}`)
    }
    expect(api('/index.php')).toHaveLength(0)
    // Totals over the same window are one range period, which Matomo serves.
    const totals = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...allTime, type: 'SESSIONS' } })
    expect(totals.status).toBe(200)
    expect(calls('API.getBulkRequest')[0]?.['urls[0]']).toContain('date=1992-01-01%2C9999-12-30')
    // The longest series: 1825 days answers every day; one day more is refused.
    const day = (n: number) =>
      new Date(Date.parse('2020-01-01T00:00:00Z') + n * 86_400_000).toISOString().slice(0, 10)
    const window = { property_id: '1', start_gte: day(0), dimension: 'DATE', type: 'SESSIONS' }
    const longest = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...window, end_lt: day(1825) } })
    expect(longest.status).toBe(200)
    expect(longest.body[0]?.metrics).toHaveLength(1825)
    expect((await h.api('GET', `${base()}/report`, { query: { ...window, end_lt: day(1826) } })).status).toBe(
      400,
    )
  })

  it('counts conversions, not converted visits, and does not claim a conversion total it lacks', async () => {
    const window = { property_id: '1', start_gte: emu.state.firstDay, end_lt: emu.state.dayAfterLast }
    const seeded = emu.state
      .visitsOf('1')
      .filter((v) => v.lastActionTimestamp * 1000 < Date.parse(window.end_lt))
    const conversionsOf = (v: (typeof seeded)[number]) =>
      v.actionDetails.filter((a) => a.type === 'goal' || a.type === 'ecommerceOrder').length
    // The data has a visit converting more than once, where the two counts differ.
    expect(seeded.some((v) => conversionsOf(v) > 1)).toBe(true)
    const countries = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'COUNTRY', type: 'CONVERSIONS' },
    })
    expect(countries.status).toBe(200)
    const rows = countries.body[0]?.metrics as Rec[]
    expect(rows.reduce((a, m) => a + Number(m.value), 0)).toBe(
      seeded.reduce((a, v) => a + conversionsOf(v), 0),
    )
    // VisitsSummary.get counts converted visits only: the total is not offered as conversions.
    const total = await h.api<Rec>('GET', `${base()}/report`, { query: { ...window, type: 'CONVERSIONS' } })
    expect(total.status).toBe(501)
  })

  it('breaks down by event name and medium alone, not by the subtables flat=1 would add', async () => {
    const window = { property_id: '1', start_gte: emu.state.firstDay, end_lt: emu.state.dayAfterLast }
    const seeded = emu.state
      .visitsOf('1')
      .filter((v) => v.lastActionTimestamp * 1000 < Date.parse(window.end_lt))
    const events = seeded.flatMap((v) => v.actionDetails.filter((a) => a.type === 'event'))
    const byName = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'EVENT_NAME', type: 'EVENTS' },
    })
    expect(byName.status).toBe(200)
    const expected = new Map<string, number>()
    for (const e of events) expected.set(String(e.eventName), (expected.get(String(e.eventName)) ?? 0) + 1)
    expect(
      new Map(
        ((byName.body[0]?.metrics ?? []) as Rec[]).map((m) => [String(m.dimension_value), Number(m.value)]),
      ),
    ).toEqual(expected)
    const byMedium = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'MEDIUM', type: 'SESSIONS' },
    })
    const media = ((byMedium.body[0]?.metrics ?? []) as Rec[]).map((m) => String(m.dimension_value))
    expect(new Set(media).size).toBe(media.length)
    // The values sessions carry as medium, not the types' display names.
    expect(media.sort()).toEqual([...new Set(seeded.map((v) => String(v.referrerType)))].sort())
    expect(((byMedium.body[0]?.metrics ?? []) as Rec[]).reduce((n, m) => n + Number(m.value), 0)).toBe(
      seeded.length,
    )
  })

  it("breaks down by source as sessions name it: the referrer, not Referrers.getAll's search keywords", async () => {
    const window = { property_id: '1', start_gte: emu.state.firstDay, end_lt: emu.state.dayAfterLast }
    const seeded = emu.state
      .visitsOf('1')
      .filter((v) => v.lastActionTimestamp * 1000 < Date.parse(window.end_lt) && v.referrerType !== 'direct')
    const expected = new Map<string, number>()
    for (const v of seeded)
      expected.set(String(v.referrerName), (expected.get(String(v.referrerName)) ?? 0) + 1)
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'SOURCE', type: 'SESSIONS' },
    })
    expect(res.status, res.text).toBe(200)
    const got = new Map(
      ((res.body[0]?.metrics ?? []) as Rec[]).map((m) => [String(m.dimension_value), Number(m.value)]),
    )
    expect(got).toEqual(expected)
    expect(got.has('Keyword not defined')).toBe(false)
  })

  it('claims the whole weeks and months Matomo widens a WEEK or MONTH series to', async () => {
    // Site 1's timezone decides the instants; the window asks Wednesday 2024-05-01 to Wednesday 05-08.
    const timezone = emu.state.sites.get('1')?.timezone as string
    const q = { property_id: '1', start_gte: '2024-05-01', end_lt: '2024-05-09' }
    const weekly = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...q, dimension: 'WEEK' } })
    expect(weekly.status).toBe(200)
    const week = weekly.body[0] as Rec
    // Monday 2024-04-29 to the end of Sunday 2024-05-12, in the site's zone.
    expect(Date.parse(String(week.start_at))).toBe(startOfDay('2024-04-29', timezone))
    expect(Date.parse(String(week.end_at))).toBe(startOfDay('2024-05-13', timezone))
    const labels = new Set((week.metrics as Rec[]).map((m) => m.dimension_value))
    // Each week by its first day: Matomo counts the whole week from Monday, before the window asked for.
    expect([...labels]).toEqual(['2024-04-29', '2024-05-06'])
    expect(calls('API.getBulkRequest')[0]?.['urls[0]']).toContain('date=2024-04-29%2C2024-05-12')
    const monthly = await h.api<Rec[]>('GET', `${base()}/report`, { query: { ...q, dimension: 'MONTH' } })
    const month = monthly.body[0] as Rec
    expect(Date.parse(String(month.start_at))).toBe(startOfDay('2024-05-01', timezone))
    expect(Date.parse(String(month.end_at))).toBe(startOfDay('2024-06-01', timezone))
  })

  it("reports the landing-page bounce rate from Matomo's bounce_rate column", async () => {
    const window = { property_id: '1', start_gte: emu.state.firstDay, end_lt: emu.state.dayAfterLast }
    const res = await h.api<Rec[]>('GET', `${base()}/report`, {
      query: { ...window, dimension: 'LANDING_PAGE', type: 'BOUNCE_RATE' },
    })
    expect(res.status).toBe(200)
    const rates = res.body[0]?.metrics as Rec[]
    expect(rates.length).toBeGreaterThan(0)
    for (const m of rates) expect(m.value as number).toBeGreaterThanOrEqual(0)
    expect(rates.some((m) => (m.value as number) > 0)).toBe(true)
  })

  it('tells a token without access to a site (403) from a rejected token (re-authorize)', async () => {
    const viewer = await createConnection(h, {
      integration_type: 'matomo',
      auth: { token_auth: VIEWER, api_url: emu.url },
    })
    const listed = await h.api<Rec[]>('GET', `/analytics/${viewer}/property`)
    expect(listed.body.map((p) => p.id)).toEqual(['1'])
    const denied = await h.api<Rec>('GET', `/analytics/${viewer}/property/2`)
    expect(denied.status).toBe(403)
    expect(denied.body.message).toContain("requires 'view' access for the website id = 2")
    expect(denied.body.message).not.toContain('re-authorize')
  })

  it("refuses a raw method, module or format on a report: a sub-request's method stays the connector's", async () => {
    const window = { property_id: '1', start_gte: emu.state.firstDay, end_lt: emu.state.dayAfterLast }
    const sites = [...emu.state.sites.keys()]
    const before = calls('API.getBulkRequest').length
    for (const raw of ['method=SitesManager.deleteSite', 'module=API', 'format=xml']) {
      const res = await h.api<Rec>('GET', `${base()}/report`, { query: { ...window, raw, fields: 'raw' } })
      expect(res.status).toBe(400)
      expect(String(res.body.message)).toContain(`raw: '${raw.split('=')[0]}'`)
    }
    // Nothing reached Matomo, and every site is still there.
    expect(calls('API.getBulkRequest').length).toBe(before)
    expect([...emu.state.sites.keys()]).toEqual(sites)
  })

  it.each([
    ['property', {}, 'filter_limit=1', 'filter_limit', 'limit and offset'],
    ['session', { property_id: '1' }, 'filter_offset=5', 'filter_offset', 'limit and offset'],
    ['session', { property_id: '1' }, 'countVisitorsToFetch=500', 'countVisitorsToFetch', 'limit and offset'],
    ['event', { property_id: '1' }, 'idSite=2', 'idSite', 'property_id'],
    ['report', { property_id: '1' }, 'filter_limit=2', 'filter_limit', 'limit and offset'],
  ])(
    'refuses a raw parameter Unigate sets itself on a %s list, before calling Matomo',
    async (object, filters, raw, name, instead) => {
      const window: Record<string, string> =
        object === 'property' ? {} : { start_gte: emu.state.firstDay, end_lt: emu.state.dayAfterLast }
      const before = emu.requests().length
      const res = await h.api<Rec>('GET', `${base()}/${object}`, { query: { ...filters, ...window, raw } })
      expect(res.status, res.text).toBe(400)
      expect(String(res.body.message)).toContain(`'${name}'`)
      expect(String(res.body.message)).toContain(instead)
      expect(emu.requests().length).toBe(before)
    },
  )

  it('explains the reports it cannot give', async () => {
    const q = { property_id: '1', start_gte: '2024-05-01', end_lt: '2024-05-02' }
    expect((await h.api('GET', `${base()}/report`, { query: { ...q, dimension: 'VIDEO' } })).status).toBe(501)
    expect((await h.api('GET', `${base()}/report`, { query: { ...q, dimension: 'NOPE' } })).status).toBe(400)
    expect((await h.api('GET', `${base()}/report`, { query: { ...q, type: 'WATCH_TIME' } })).status).toBe(501)
    expect(
      (await h.api('GET', `${base()}/report`, { query: { ...q, start_gte: '2024-05-01T10:00:00Z' } })).status,
    ).toBe(400)
    expect((await h.api('GET', `${base()}/report`, { query: { start_gte: q.start_gte } })).status).toBe(400)
  })

  it('retries a 503, passes on a lasting 429, maps a 500 to 502 and an auth error to 403', async () => {
    emu.fault({ status: 503, times: 1, pathPattern: '^/index.php$' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(200)
    expect(api('/index.php')).toHaveLength(2)
    emu.fault({ status: 429, times: 10, pathPattern: '^/index.php$', headers: { 'retry-after': '1' } })
    const limited = await h.api('GET', `${base()}/property`)
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('1')
    emu.clearFaults()
    emu.fault({ status: 500, pathPattern: '^/index.php$' })
    expect((await h.api('GET', `${base()}/property`)).status).toBe(502)
    emu.clearFaults()
    emu.fault({ delayMs: 3500, pathPattern: '^/index.php$' })
    const slow = await h.api<Rec>('GET', `${base()}/property`)
    expect(slow.status).toBe(504)
    emu.state.revokeToken(DEFAULT_MATOMO_TOKEN)
    try {
      const denied = await h.api<Rec>('GET', `${base()}/property`)
      expect(denied.status).toBe(403)
      expect(denied.body.message).toContain('re-authorize')
    } finally {
      emu.state.restoreToken(DEFAULT_MATOMO_TOKEN)
    }
  })

  it('passes on an error Matomo reports in a 200 without the token it quotes', async () => {
    // Matomo reports errors as HTTP 200 with `result: error` (core/API/ResponseBuilder.php), a message that may
    // quote a parameter it was sent; the token travels in every request's body.
    emu.fault({
      status: 200,
      times: 1,
      pathPattern: '^/index.php$',
      body: {
        result: 'error',
        message: `The parameter token_auth=${DEFAULT_MATOMO_TOKEN} is not valid here`,
      },
    })
    const refused = await h.api<Rec>('GET', `${base()}/property`)
    expect(refused.status).toBe(400)
    expect(refused.body.message).toContain('The parameter token_auth=[redacted] is not valid here')
    expect(refused.text).not.toContain(DEFAULT_MATOMO_TOKEN)
    expect((await h.api('GET', '/unified/apicall', { query: { error: 'true' } })).text).not.toContain(
      DEFAULT_MATOMO_TOKEN,
    )
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'matomo')
    expect(Object.keys(support).sort()).toEqual([
      'analytics_event',
      'analytics_property',
      'analytics_report',
      'analytics_session',
      'analytics_visitor',
    ])
    const visit = emu.state.visitsOf('1')[0]
    const ids: Record<string, string> = {
      analytics_property: '1',
      analytics_event: `1:${visit?.idVisit}:0`,
      analytics_session: `1:${visit?.idVisit}`,
      analytics_visitor: `1:${visit?.visitorId}`,
    }
    const bodies: Record<string, Rec> = {
      analytics_property: { name: 'Matrix' },
      analytics_event: { property_id: '1', event_type: 'PAGE_VIEW', page_url: 'https://m.example/' },
      analytics_visitor: { name: 'x' },
    }
    // remove is claimed for visitors (GDPR deletion): delete one that exists rather than creating one.
    const doomed = `1:${emu.state.visitsOf('1')[7]?.visitorId}`
    await expectSupportMatrixAnswers(h, base(), support, {
      query: ({ object }) => (object === 'analytics_property' ? undefined : { property_id: '1' }),
      body: ({ object, method }) => (method === 'create' ? (bodies[object] ?? {}) : { name: 'Acme 1' }),
      id: async ({ object, method, claimed, path }) =>
        method !== 'remove'
          ? (ids[object] ?? 'x')
          : object === 'analytics_visitor'
            ? doomed
            : claimed
              ? String((await h.api<Rec>('POST', path, { body: bodies[object] })).body.id)
              : (ids[object] ?? 'x'),
    })
  })
})

describe('Matomo reports archived past their row caps', () => {
  let h: Harness
  let emu: MatomoEmulator
  let conn: string

  useEmulatorSuite({
    // Small caps so the seeded data overflows them; a French user, so the summary row reads "Autres"
    // unless the request asks for English.
    start: () =>
      startMatomoEmulator({
        seed: 5,
        sites: 1,
        visitsPerSite: 60,
        archivingLimits: { standard: 3, actions: 3 },
        userLanguage: 'fr',
      }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'matomo',
        auth: { token_auth: DEFAULT_MATOMO_TOKEN, api_url: emu.url },
      })
    },
  })
  const report = (dimension: string) =>
    h.api<Rec>('GET', `/analytics/${conn}/report`, {
      query: {
        property_id: '1',
        start_gte: emu.state.firstDay,
        end_lt: emu.state.dayAfterLast,
        dimension,
        type: 'SESSIONS',
      },
    })

  it('fails a breakdown Matomo summed into "Others", naming the setting, instead of passing it on', async () => {
    const cities = await report('CITY')
    expect(cities.status).toBe(502)
    expect(cities.body.message).toContain('datatable_archiving_maximum_rows_standard')
    expect(cities.body.message).toContain('"Others"')
    const bulk = emu.requests().find((r) => r.path === '/index.php')
    expect((bulk?.body as Rec | undefined)?.language).toBe('en')
    const pages = await report('LANDING_PAGE')
    expect(pages.status).toBe(502)
    expect(pages.body.message).toContain('datatable_archiving_maximum_rows_actions')
  })

  it('lists every site past the 100 Matomo answers over HTTP without filter_limit', async () => {
    for (let i = 0; i < 120; i++) emu.state.addSite({ siteName: `Many ${i}`, group: i % 2 ? 'Odd' : '' })
    const all = await h.api<Rec[]>('GET', `/analytics/${conn}/property`, { query: { limit: 200 } })
    expect(all.body).toHaveLength(121)
    const tail = await h.api<Rec[]>('GET', `/analytics/${conn}/property`, {
      query: { offset: 110, limit: 20 },
    })
    expect(tail.body.map((p) => p.id)).toEqual([...emu.state.sites.keys()].slice(110, 121))
    const odd = await h.api<Rec[]>('GET', `/analytics/${conn}/property`, {
      query: { parent_id: 'Odd', limit: 200 },
    })
    expect(odd.body).toHaveLength(60)
    const named = await h.api<Rec[]>('GET', `/analytics/${conn}/property`, {
      query: { query: 'many', limit: 200 },
    })
    expect(named.body).toHaveLength(120)
  })

  it('answers breakdowns within their cap, and countries, which Matomo never caps', async () => {
    const total = emu.state.visitsOf('1').length
    for (const dimension of ['DEVICE_TYPE', 'COUNTRY']) {
      const res = await report(dimension)
      expect(res.status, res.text).toBe(200)
      const metrics = ((res.body as unknown as Rec[])[0]?.metrics ?? []) as Rec[]
      expect(metrics.reduce((n, m) => n + Number(m.value), 0)).toBe(total)
      expect(metrics.some((m) => m.dimension_value === 'Others' || m.dimension_value === 'Autres')).toBe(
        false,
      )
    }
  })
})
