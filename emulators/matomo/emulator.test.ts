import { createHash } from 'node:crypto'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MATOMO_TOKEN, type MatomoEmulator, startMatomoEmulator } from './index.js'

/**
 * A Matomo manual zone (`UTC±h`) where it is about noon now, so visits of the last minutes and an action
 * tracked now share a site day (a visit does not continue past the site's midnight).
 */
function noonZone(): string {
  const offset = 12 - new Date().getUTCHours()
  return `UTC${offset >= 0 ? '+' : ''}${offset}`
}

const VIEWER = 'feed0000feed0000feed0000feed0000'

describe('Matomo emulator strictness', () => {
  let emu: MatomoEmulator
  beforeAll(async () => {
    emu = await startMatomoEmulator({
      seed: 1,
      sites: 2,
      visitsPerSite: 10,
      viewTokens: { [VIEWER]: ['1'] },
    })
  })
  afterAll(async () => emu?.close())

  const post = async (query: string, form: Record<string, string>) => {
    const res = await request(`${emu.url}/index.php?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    })
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> | unknown[] }
  }
  const token = { token_auth: DEFAULT_MATOMO_TOKEN }

  it('answers errors with HTTP 200 and result=error', async () => {
    const unknown = await post('module=API&format=JSON&method=Nope.get', token)
    expect(unknown).toMatchObject({ status: 200, body: { result: 'error' } })
    const missing = await post('module=API&format=JSON&method=SitesManager.getSiteFromId', token)
    expect(missing.body).toEqual({ result: 'error', message: "Please specify a value for 'idSite'." })
    const badPeriod = await post(
      'module=API&format=JSON&method=VisitsSummary.get&idSite=1&period=decade&date=today',
      token,
    )
    expect((badPeriod.body as Record<string, string>).message).toContain("period 'decade'")
    const badSegment = await post(
      'module=API&format=JSON&method=Live.getLastVisitsDetails&idSite=1&segment=shoeSize==9',
      token,
    )
    expect((badSegment.body as Record<string, string>).message).toContain('not a supported segment')
  })

  it('ends a date range at December 31st ten years from now, and refuses a day before the first website', async () => {
    // core/Period/Range.php generate and getMaxAllowedEndTimestamp; core/Date.php factory.
    const q = 'module=API&format=JSON&method=VisitsSummary.get&idSite=1&period=year'
    const years = await post(q, { ...token, date: '2020-06-01,9999-12-31' })
    const thisYear = new Date().getUTCFullYear()
    expect(Object.keys(years.body)).toEqual(
      Array.from({ length: thisYear + 10 - 2020 + 1 }, (_, i) => String(2020 + i)),
    )
    const early = await post(q, { ...token, date: '1991-08-05,2020-01-01' })
    expect((early.body as Record<string, string>).message).toContain('before first website was online')
  })

  it("carries filter_offset across Live's time windows as Matomo does, skipping visits past a full window", async () => {
    // Five visits in the 7 days before now, five older: Matomo queries [now, …), the 7 days before, then
    // the rest, and undercounts the 7-day window for an offset past it (plugins/Live/Model.php queryLogVisits).
    const site = emu.state.addSite({ siteName: 'Windows' })
    const idSite = String(site.idsite)
    const now = Math.floor(Date.now() / 1000)
    const r = emu.state.nextRandom(7)
    for (const daysAgo of [1, 2, 3, 4, 5, 20, 21, 22, 23, 24]) {
      emu.state.insertVisit(emu.state.newVisit(r, idSite, 'abcdef0123456789', now - daysAgo * 86_400, 1))
    }
    const live = async (offset: number, limit: number) =>
      (
        (
          await post('module=API&format=JSON&method=Live.getLastVisitsDetails', {
            ...token,
            idSite,
            filter_offset: String(offset),
            filter_limit: String(limit),
          })
        ).body as Array<{ idVisit: string }>
      ).map((v) => v.idVisit)
    const all = await live(0, 10)
    expect(all).toEqual(emu.state.visitsOf(idSite).map((v) => v.idVisit))
    expect(await live(2, 2)).toEqual(all.slice(2, 4))
    expect(await live(4, 2)).toEqual(all.slice(4, 6))
    // Offset 6 is past the 5 recent visits; Matomo counts them as 3 (limit + 1) and skips 2 older ones.
    expect(await live(6, 2)).toEqual(all.slice(8, 10))
  })

  it("writes action times on the site's wall clock, ambiguous in the hour repeated when DST ends", async () => {
    // Europe/Berlin, 27 October 2024: 01:00 UTC turns 03:00 CEST back to 02:00 CET. Live writes an
    // action's `timestamp` as the wall clock read as UTC and `serverTimePretty` as that clock written out
    // (plugins/Actions/VisitorDetails.php extendActionDetails; plugins/Intl/lang/en.json); the visit's
    // own timestamps stay UTC (plugins/Live/VisitorDetails.php).
    const site = emu.state.addSite({ siteName: 'Berlin', timezone: 'Europe/Berlin' })
    const idSite = String(site.idsite)
    const utc = (hm: string) => Date.parse(`2024-10-27T${hm}:00Z`) / 1000
    const visit = emu.state.newVisit(emu.state.nextRandom(27), idSite, '0123456789abcdef', utc('00:40'), 4)
    ;['00:40', '00:55', '01:10', '01:25'].forEach((hm, i) => {
      ;(visit.actionDetails[i] as { timestamp: number }).timestamp = utc(hm)
    })
    emu.state.refresh(visit)
    emu.state.insertVisit(visit)
    const [live] = (
      await post('module=API&format=JSON&method=Live.getLastVisitsDetails', { ...token, idSite })
    ).body as Array<Record<string, unknown> & { actionDetails: Array<Record<string, unknown>> }>
    expect(live).toMatchObject({
      firstActionTimestamp: utc('00:40'),
      lastActionTimestamp: utc('01:25'),
      serverTimestamp: utc('01:25'),
      serverDate: '2024-10-27',
      serverTimePretty: '02:25:00',
      serverDatePretty: 'Sunday, October 27, 2024',
      serverTimePrettyFirstAction: '02:40:00',
      serverDatePrettyFirstAction: 'Sunday, October 27, 2024',
    })
    const wall = (hm: string) => Date.parse(`2024-10-27T${hm}:00Z`) / 1000
    expect(live?.actionDetails.map((a) => [a.timestamp, a.serverTimePretty])).toEqual([
      [wall('02:40'), 'Oct 27, 2024 02:40:00'],
      [wall('02:55'), 'Oct 27, 2024 02:55:00'],
      [wall('02:10'), 'Oct 27, 2024 02:10:00'],
      [wall('02:25'), 'Oct 27, 2024 02:25:00'],
    ])
  })

  it("moves a visit that gets a new action to the front of Live's list (the end, oldest first)", async () => {
    // ORDER BY visit_last_action_time, idvisit (plugins/Live/Model.php makeLogVisitsQueryString), and a
    // tracked action moves visit_last_action_time (plugins/CoreHome/Columns/VisitLastActionTime.php).
    const site = emu.state.addSite({ siteName: 'Reorder', timezone: noonZone() })
    const idSite = String(site.idsite)
    const now = Math.floor(Date.now() / 1000)
    const r = emu.state.nextRandom(99)
    for (let i = 0; i < 4; i++) {
      emu.state.insertVisit(emu.state.newVisit(r, idSite, `000000000000000${i}`, now - 900 + i * 60, 1))
    }
    const ids = async (order?: string) =>
      (
        (
          await post('module=API&format=JSON&method=Live.getLastVisitsDetails', {
            ...token,
            idSite,
            ...(order ? { filter_sort_order: order } : {}),
          })
        ).body as Array<{ idVisit: string }>
      ).map((v) => v.idVisit)
    const before = await ids()
    const oldest = before[3] as string
    const res = await request(
      `${emu.url}/matomo.php?idsite=${idSite}&rec=1&cid=0000000000000000&url=https%3A%2F%2Fa.io%2F`,
    )
    expect(res.statusCode).toBe(200)
    await res.body.dump()
    expect(await ids()).toEqual([oldest, ...before.slice(0, 3)])
    expect(await ids('asc')).toEqual([...before.slice(0, 3)].reverse().concat(oldest))
  })

  it('refuses a token in the URL, a wrong token, and no token', async () => {
    const inUrl = await post(
      `module=API&format=JSON&method=API.getMatomoVersion&token_auth=${DEFAULT_MATOMO_TOKEN}`,
      {},
    )
    expect((inUrl.body as Record<string, string>).result).toBe('error')
    const wrong = await post('module=API&format=JSON&method=API.getMatomoVersion', {
      token_auth: '0'.repeat(32),
    })
    expect((wrong.body as Record<string, string>).message).toContain('Unable to authenticate')
    expect(
      ((await post('module=API&format=JSON&method=API.getMatomoVersion', {})).body as Record<string, string>)
        .result,
    ).toBe('error')
  })

  it('types site scalars as strings and pages visits with filter_offset/filter_limit', async () => {
    const site = (
      await post('module=API&format=JSON&method=SitesManager.getSiteFromId', { ...token, idSite: '1' })
    ).body
    expect(site).toMatchObject({ idsite: '1', ecommerce: '0' })
    const page = (
      await post('module=API&format=JSON&method=Live.getLastVisitsDetails', {
        ...token,
        idSite: '1',
        filter_offset: '3',
        filter_limit: '4',
      })
    ).body as Array<Record<string, unknown>>
    expect(page.map((v) => v.idVisit)).toEqual(
      emu.state
        .visitsOf('1')
        .slice(3, 7)
        .map((v) => v.idVisit),
    )
    expect(typeof page[0]?.visitDuration).toBe('string')
    expect(typeof page[0]?.firstActionTimestamp).toBe('number')
  })

  it('formats rates unless format_metrics=0', async () => {
    const q = 'module=API&format=JSON&method=VisitsSummary.get'
    const p = {
      ...token,
      idSite: '1',
      period: 'range',
      date: `${emu.state.firstDay},${emu.state.dayAfterLast}`,
    }
    expect(((await post(q, p)).body as Record<string, unknown>).bounce_rate).toMatch(/%$/)
    expect(
      typeof ((await post(q, { ...p, format_metrics: '0' })).body as Record<string, unknown>).bounce_rate,
    ).toBe('number')
    expect(
      ((await post(q, { ...p, period: 'range', date: 'today' })).body as Record<string, unknown>).result,
    ).toBe('error')
  })

  it('counts invalid bulk tracking requests and refuses a repeated order id', async () => {
    const send = async (requests: string[]) =>
      (await (
        await request(`${emu.url}/matomo.php`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ requests, token_auth: DEFAULT_MATOMO_TOKEN }),
        })
      ).body.json()) as Record<string, unknown>
    expect(await send(['?idsite=1&rec=1&url=https%3A%2F%2Fa.io%2F', '?idsite=99&rec=1'])).toMatchObject({
      status: 'success',
      tracked: 1,
      invalid: 1,
      invalid_indices: [1],
    })
    expect(await send(['?idsite=1&rec=1&idgoal=0&ec_id=o-1&revenue=5'])).toMatchObject({ tracked: 1 })
    expect(await send(['?idsite=1&rec=1&idgoal=0&ec_id=o-1&revenue=5'])).toMatchObject({
      tracked: 0,
      invalid: 1,
    })
  })

  it('recognises visitors as Matomo does: cid forced, _id falling back to the config id, uid hashed', async () => {
    const send = async (requests: string[]) =>
      (await (
        await request(`${emu.url}/matomo.php`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'unigate-test' },
          body: JSON.stringify({ requests, token_auth: DEFAULT_MATOMO_TOKEN }),
        })
      ).body.json()) as Record<string, unknown>
    const visitorOf = (pv: string) =>
      emu.state.visitsOf('2').find((v) => v.actionDetails.some((a) => a.idpageview === pv))
    // One client, two cookie ids: the second has no visit yet, so the config id (same IP, user agent,
    // language) finds the first visitor's visit; the action joins it and the visit changes hands.
    await send(['?idsite=2&rec=1&url=https%3A%2F%2Fa.io%2F&_id=1111111111111111&pv_id=aaaaaa'])
    await send(['?idsite=2&rec=1&url=https%3A%2F%2Fa.io%2F&_id=2222222222222222&pv_id=bbbbbb'])
    expect(visitorOf('bbbbbb')?.idVisit).toBe(visitorOf('aaaaaa')?.idVisit)
    expect(visitorOf('aaaaaa')?.visitorId).toBe('2222222222222222')
    // A forced cid matches on the visitor id only: a visit of its own.
    await send(['?idsite=2&rec=1&e_c=C&e_a=A&cid=3333333333333333&pv_id=cccccccXYZ'])
    const forced = visitorOf('cccccc')
    expect(forced?.idVisit).not.toBe(visitorOf('aaaaaa')?.idVisit)
    expect(forced?.visitorId).toBe('3333333333333333')
    expect(forced?.actionDetails[0]).toMatchObject({ type: 'event', idpageview: 'cccccc' })
    // A user id makes the visitor id (and, unknown, falls back to the config id too).
    await send(['?idsite=2&rec=1&url=https%3A%2F%2Fa.io%2F&uid=ann%40x.io&pv_id=dddddd'])
    expect(visitorOf('dddddd')).toMatchObject({
      userId: 'ann@x.io',
      visitorId: createHash('sha1').update('ann@x.io').digest('hex').slice(0, 16),
    })
    // cid must be 16 hex characters; a future cdt is ignored.
    expect(await send(['?idsite=2&rec=1&cid=123'])).toMatchObject({ tracked: 0, invalid: 1 })
    const future = Math.floor(Date.now() / 1000) + 86_400
    await send([`?idsite=2&rec=1&url=https%3A%2F%2Fa.io%2F&cid=4444444444444444&pv_id=eeeeee&cdt=${future}`])
    expect(visitorOf('eeeeee')?.lastActionTimestamp).toBeLessThan(future)
    // Without pv_id the stored page view id is empty.
    await send(['?idsite=2&rec=1&link=https%3A%2F%2Fout.io%2F&cid=5555555555555555'])
    const out = emu.state.visitsOf('2').find((v) => v.visitorId === '5555555555555555')
    expect(out?.actionDetails[0]).toMatchObject({ type: 'outlink', idpageview: '' })
  })

  it('answers a rejected token and missing site access with HTTP 401, but not inside a bulk request', async () => {
    const q = 'module=API&format=JSON&method=API.getMatomoVersion'
    const wrong = await post(q, { token_auth: '0'.repeat(32) })
    expect(wrong).toEqual({
      status: 401,
      body: {
        result: 'error',
        message: 'Unable to authenticate with the provided token. It is either invalid or expired.',
      },
    })
    expect((await post(`${q}&token_auth=${DEFAULT_MATOMO_TOKEN}`, {})).status).toBe(401)
    expect((await post(q, {})).status).toBe(401)
    const site = 'module=API&format=JSON&method=SitesManager.getSiteFromId'
    expect((await post(site, { token_auth: VIEWER, idSite: '1' })).status).toBe(200)
    expect(await post(site, { token_auth: VIEWER, idSite: '2' })).toEqual({
      status: 401,
      body: {
        result: 'error',
        message: "You can't access this resource as it requires 'view' access for the website id = 2.",
      },
    })
    const listed = await post('module=API&format=JSON&method=SitesManager.getSitesWithAtLeastViewAccess', {
      token_auth: VIEWER,
    })
    expect((listed.body as Array<Record<string, unknown>>).map((s) => s.idsite)).toEqual(['1'])
    const bulk = await post('module=API&format=JSON&method=API.getBulkRequest', {
      token_auth: VIEWER,
      'urls[0]': 'method=SitesManager.getSiteFromId&idSite=2',
    })
    expect(bulk.status).toBe(200)
    expect((bulk.body as Array<Record<string, unknown>>)[0]?.result).toBe('error')
    // A super user asking for a site that does not exist: a plain exception, HTTP 200.
    expect((await post(site, { ...token, idSite: '99' })).status).toBe(200)
  })

  it('gives a visitor profile as Matomo does: first action time, countries ascending, 100 visits', async () => {
    const r = emu.state.nextRandom(77)
    const visitorId = 'aaaabbbbccccdddd'
    const t0 = 1_714_000_000
    // 101 visits: the oldest in Germany, one in Japan, the rest in France.
    for (let i = 0; i < 101; i++) {
      const v = emu.state.newVisit(r, '2', visitorId, t0 + i * 7200, 1)
      v.countryCode = i === 0 ? 'de' : i === 50 ? 'jp' : 'fr'
      emu.state.insertVisit(v)
    }
    const profile = (
      await post('module=API&format=JSON&method=Live.getVisitorProfile', { ...token, idSite: '2', visitorId })
    ).body as Record<string, unknown>
    expect((profile.firstVisit as Record<string, unknown>).date).toBe(t0)
    expect((profile.lastVisit as Record<string, unknown>).date).toBe(t0 + 100 * 7200)
    // Only the 100 most recent are aggregated (the German visit is the 101st).
    expect(profile).toMatchObject({ totalVisits: 100, hasMoreVisits: true })
    expect(
      (profile.countries as Array<Record<string, unknown>>).map((c) => [c.country, c.nb_visits]),
    ).toEqual([
      ['jp', 1],
      ['fr', 99],
    ])
    const none = await post('module=API&format=JSON&method=Live.getVisitorProfile', {
      ...token,
      idSite: '2',
      visitorId: '0000000000000000',
    })
    expect(none.body).toEqual([])
  })

  it('finds at most 401 data subjects, with only the columns the GDPR tool keeps', async () => {
    const r = emu.state.nextRandom(78)
    const visitorId = 'eeeeffff00001111'
    for (let i = 0; i < 405; i++)
      emu.state.insertVisit(emu.state.newVisit(r, '1', visitorId, 1_714_000_000 + i * 7200, 1))
    const found = (
      await post('module=API&format=JSON&method=PrivacyManager.findDataSubjects', {
        ...token,
        idSite: '1',
        segment: `visitorId==${visitorId}`,
      })
    ).body as Array<Record<string, unknown>>
    expect(found).toHaveLength(401)
    expect(Object.keys(found[0] ?? {})).toContain('idVisit')
    expect(found[0]?.actionDetails).toBeUndefined()
    expect(found[0]?.idvisit).toBeUndefined()
    const denied = await post('module=API&format=JSON&method=PrivacyManager.findDataSubjects', {
      token_auth: VIEWER,
      idSite: '1',
      segment: `visitorId==${visitorId}`,
    })
    expect(denied.status).toBe(401)
  })

  it("lists search keywords, not engines, and no direct entries in Referrers.getAll, as Matomo's subtables do", async () => {
    const form = {
      ...token,
      idSite: '1',
      period: 'range',
      date: `${emu.state.firstDay},${emu.state.dayAfterLast}`,
      filter_limit: '-1',
    }
    const all = (await post('module=API&format=JSON&method=Referrers.getAll', form)).body as Array<
      Record<string, unknown>
    >
    const labels = all.map((r) => r.label)
    expect(labels).not.toContain('Direct Entry')
    expect(all.filter((r) => r.referer_type === 'search').map((r) => r.label)).toEqual([
      'Keyword not defined',
    ])
    const engines = (await post('module=API&format=JSON&method=Referrers.getSearchEngines', form))
      .body as Array<Record<string, unknown>>
    const searches = emu.state.visitsOf('1').filter((v) => v.referrerType === 'search')
    expect(engines.map((r) => r.label).sort()).toEqual(
      [...new Set(searches.map((v) => v.referrerName))].sort(),
    )
  })

  it('gives entry pages the processed bounce_rate, never entry_bounce_rate', async () => {
    const rows = (
      await post('module=API&format=JSON&method=Actions.getEntryPageUrls', {
        ...token,
        idSite: '1',
        period: 'range',
        date: `${emu.state.firstDay},${emu.state.dayAfterLast}`,
        flat: '1',
        format_metrics: '0',
      })
    ).body as Array<Record<string, number>>
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row.entry_bounce_rate).toBeUndefined()
      expect(row.bounce_rate).toBe(Math.round((row.entry_bounce_count! / row.entry_nb_visits!) * 100) / 100)
    }
  })
})

describe('Matomo emulator archiving truncation', () => {
  let emu: MatomoEmulator
  beforeAll(async () => {
    emu = await startMatomoEmulator({
      seed: 2,
      sites: 1,
      visitsPerSite: 60,
      archivingLimits: { standard: 3, actions: 3, subtable_actions: 1 },
      userLanguage: 'fr',
    })
  })
  afterAll(async () => emu?.close())

  const report = async (method: string, form: Record<string, string> = {}) => {
    const res = await request(`${emu.url}/index.php?module=API&format=JSON&method=${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token_auth: DEFAULT_MATOMO_TOKEN,
        idSite: '1',
        period: 'range',
        date: `${emu.state.firstDay},${emu.state.dayAfterLast}`,
        format_metrics: '0',
        ...form,
      }).toString(),
    })
    return (await res.body.json()) as Array<Record<string, unknown>>
  }
  const visits = () => emu.state.visitsOf('1').length

  it('keeps cap - 1 rows and sums the rest into a last row labelled in the user language', async () => {
    const cities = await report('UserCountry.getCity', { filter_limit: '-1' })
    expect(cities).toHaveLength(3)
    expect(cities[2]?.label).toBe('Autres')
    expect(cities.reduce((n, r) => n + Number(r.nb_visits), 0)).toBe(visits())
    const english = await report('UserCountry.getCity', { filter_limit: '-1', language: 'en' })
    expect(english[2]?.label).toBe('Others')
    // Metadata stays off the summary row; a table at its cap is not cut; countries have no cap.
    const countries = await report('UserCountry.getCountry', { filter_limit: '-1' })
    expect(countries.length).toBeGreaterThan(3)
    expect(countries.some((r) => r.label === 'Autres')).toBe(false)
    const devices = await report('DevicesDetection.getType', { filter_limit: '-1' })
    expect(devices.map((r) => r.label).sort()).toEqual(['Desktop', 'Smartphone', 'Tablet'])
  })

  it('drops the summary row with a limit that cuts the table, unless keep_summary_row=1', async () => {
    const cut = await report('UserCountry.getCity', { filter_limit: '2' })
    expect(cut.map((r) => r.label)).not.toContain('Autres')
    const kept = await report('UserCountry.getCity', { filter_limit: '1', keep_summary_row: '1' })
    expect(kept.map((r) => r.label)).toEqual([cut[0]?.label, 'Autres'])
  })

  it('marks flattened summary rows is_summary, at both levels of the page hierarchy', async () => {
    const pages = await report('Actions.getPageUrls', { flat: '1', filter_limit: '-1', language: 'en' })
    const summaries = pages.filter((r) => r.is_summary === true)
    expect(summaries.map((r) => r.label)).toContain('Others')
    expect(summaries.some((r) => String(r.label).endsWith('/ - Others'))).toBe(true)
    expect(pages.filter((r) => r.is_summary !== true).every((r) => typeof r.url === 'string')).toBe(true)
    const hits = emu.state
      .visitsOf('1')
      .flatMap((v) => v.actionDetails.filter((a) => a.type === 'action')).length
    expect(pages.reduce((n, r) => n + Number(r.nb_hits), 0)).toBe(hits)
  })

  it('takes the language of a bulk request from the outer request only', async () => {
    const url = new URLSearchParams({
      module: 'API',
      method: 'UserCountry.getCity',
      format: 'JSON',
      idSite: '1',
      period: 'range',
      date: `${emu.state.firstDay},${emu.state.dayAfterLast}`,
      filter_limit: '-1',
    })
    const bulk = async (outer: Record<string, string>, inner: string) =>
      (await (
        await request(`${emu.url}/index.php?module=API&format=JSON&method=API.getBulkRequest`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            token_auth: DEFAULT_MATOMO_TOKEN,
            'urls[0]': inner,
            ...outer,
          }).toString(),
        })
      ).body.json()) as Array<Array<Record<string, unknown>>>
    expect((await bulk({ language: 'en' }, url.toString()))[0]?.at(-1)?.label).toBe('Others')
    expect((await bulk({}, `${url}&language=en`))[0]?.at(-1)?.label).toBe('Autres')
  })
})
