import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MATOMO_TOKEN, type MatomoEmulator, startMatomoEmulator } from './index.js'

describe('Matomo emulator strictness', () => {
  let emu: MatomoEmulator
  beforeAll(async () => {
    emu = await startMatomoEmulator({ seed: 1, sites: 2, visitsPerSite: 10 })
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
})
