import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_GUSTO_CLIENT, type GustoEmulator, startGustoEmulator } from './index.js'

describe('Gusto emulator', () => {
  let emu: GustoEmulator
  beforeAll(async () => {
    emu = await startGustoEmulator({ seed: 9, employees: 30, until: '2025-06-30', historyDays: 400 })
  })
  afterAll(() => emu.close())

  const get = (path: string, token: string) =>
    fetch(`${emu.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } })
  const token = (body: Record<string, string>, json = false) =>
    fetch(`${emu.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
      body: json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
    })
  const company = () => emu.state.companyUuid

  it('pages with page and per and X-Total headers, and answers everything without page', async () => {
    const { access_token } = emu.oauth.issueTokens()
    const all = (await (await get(`/v1/companies/${company()}/employees`, access_token)).json()) as unknown[]
    expect(all).toHaveLength(30)
    const page = await get(`/v1/companies/${company()}/employees?page=2&per=7`, access_token)
    expect(((await page.json()) as unknown[]).length).toBe(7)
    expect(page.headers.get('x-total-count')).toBe('30')
    expect(page.headers.get('x-total-pages')).toBe('5')
    expect(page.headers.get('x-ratelimit-limit')).toBe('200')
    const payroll = emu.state.payrolls.find((p) => p.processed)
    const forced = await get(`/v1/companies/${company()}/payrolls/${payroll?.uuid}?per=500`, access_token)
    expect(forced.headers.get('x-per-page')).toBe('100')
  })

  it('gives employer and employee taxes apart under Gusto names; only the employee ones leave net pay', async () => {
    const { access_token } = emu.oauth.issueTokens()
    const payroll = emu.state.payrolls.find((p) => p.processed)
    const res = await get(
      `/v1/companies/${company()}/payrolls/${payroll?.uuid}?include=taxes,benefits,deductions`,
      access_token,
    )
    type Tax = { name: string; employer: boolean; amount: number }
    type Comp = {
      gross_pay: number
      net_pay: number
      taxes: Tax[]
      benefits: { employee_deduction: number }[]
      deductions: { amount: number }[]
    }
    const { employee_compensations: comps } = (await res.json()) as { employee_compensations: Comp[] }
    expect(comps.length).toBeGreaterThan(0)
    for (const c of comps) {
      expect(c.taxes.map((t) => `${t.employer ? 'employer' : 'employee'} ${t.name}`).sort()).toEqual([
        'employee CA State Income Tax',
        'employee Federal Income Tax',
        'employee Medicare',
        'employee Social Security',
        'employer FUTA',
        'employer Medicare',
        'employer Social Security',
      ])
      const withheld =
        c.taxes.filter((t) => !t.employer).reduce((n, t) => n + t.amount, 0) +
        c.benefits.reduce((n, b) => n + b.employee_deduction, 0) +
        c.deductions.reduce((n, d) => n + d.amount, 0)
      expect(Math.abs(c.gross_pay - withheld - c.net_pay)).toBeLessThan(0.05)
    }
  })

  it('refuses payroll windows Gusto refuses, and another company', async () => {
    const { access_token } = emu.oauth.issueTokens()
    const list = (q: string) => get(`/v1/companies/${company()}/payrolls?${q}`, access_token)
    expect((await list('start_date=2023-01-01&end_date=2024-06-01')).status).toBe(422)
    expect((await list('end_date=2099-01-01')).status).toBe(422)
    const bad = await list('start_date=yesterday')
    expect(await bad.json()).toEqual({
      errors: [
        {
          error_key: 'start_date',
          category: 'invalid_attribute_value',
          message: 'start_date must be a date (YYYY-MM-DD)',
        },
      ],
    })
    expect((await get('/v1/companies/00000000-0000-4000-8000-000000000000', access_token)).status).toBe(404)
  })

  it('chooses off-cycle payrolls by pay period even when asked to filter by check date', async () => {
    const { access_token } = emu.oauth.issueTokens()
    const correction = emu.state.payrolls.find((p) => p.offCycle)
    expect(correction?.checkDate).toBe('2025-06-28')
    const uuids = async (q: string) =>
      (
        (await (
          await get(`/v1/companies/${company()}/payrolls?payroll_types=regular,off_cycle&${q}`, access_token)
        ).json()) as { payroll_uuid: string }[]
      ).map((p) => p.payroll_uuid)
    const byCheck = 'date_filter_by=check_date&start_date=2025-06-01&end_date=2025-06-30'
    expect(await uuids(byCheck)).not.toContain(correction?.uuid)
    const byPeriod = `date_filter_by=check_date&start_date=${correction?.periodStart}&end_date=${correction?.periodEnd}`
    expect(await uuids(byPeriod)).toContain(correction?.uuid)
  })

  it('refuses an endpoint outside the app scopes with 403, and an expired token with 401', async () => {
    const narrow = emu.oauth.issueTokens(DEFAULT_GUSTO_CLIENT.clientId, ['companies:read'])
    expect((await get(`/v1/companies/${company()}`, narrow.access_token)).status).toBe(200)
    expect((await get(`/v1/companies/${company()}/employees`, narrow.access_token)).status).toBe(403)
    const short = emu.oauth.issueTokens()
    emu.oauth.advance(7201)
    const expired = await get(`/v1/companies/${company()}`, short.access_token)
    expect(expired.status).toBe(401)
    expect(expired.headers.get('www-authenticate')).toContain('invalid_token')
  })

  it('exchanges a code once, for its redirect URI, and rotates refresh tokens on first use of the new token', async () => {
    const redirect = DEFAULT_GUSTO_CLIENT.redirectUris[0] as string
    const code = emu.oauth.issueCode(DEFAULT_GUSTO_CLIENT.clientId, redirect)
    const client = {
      client_id: DEFAULT_GUSTO_CLIENT.clientId,
      client_secret: DEFAULT_GUSTO_CLIENT.clientSecret,
    }
    const wrong = await token({
      ...client,
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1/other',
    })
    expect(wrong.status).toBe(400)
    const code2 = emu.oauth.issueCode(DEFAULT_GUSTO_CLIENT.clientId, redirect)
    const ok = await token(
      { ...client, grant_type: 'authorization_code', code: code2, redirect_uri: redirect },
      true,
    )
    const pair = (await ok.json()) as { access_token: string; refresh_token: string; expires_in: number }
    expect(pair.expires_in).toBe(7200)
    expect(
      (await token({ ...client, grant_type: 'authorization_code', code: code2, redirect_uri: redirect }))
        .status,
    ).toBe(400)
    expect(
      (
        await token({
          client_id: client.client_id,
          grant_type: 'refresh_token',
          refresh_token: pair.refresh_token,
        })
      ).status,
    ).toBe(401)
    const renewed = (await (
      await token({ ...client, grant_type: 'refresh_token', refresh_token: pair.refresh_token })
    ).json()) as { access_token: string; refresh_token: string }
    expect(emu.oauth.refreshTokenLive(pair.refresh_token)).toBe(true)
    expect((await get('/v1/token_info', renewed.access_token)).status).toBe(200)
    expect(emu.oauth.refreshTokenLive(pair.refresh_token)).toBe(false)
  })

  it('limits each grant to its calls per window, with Retry-After to the window end', async () => {
    const small = await startGustoEmulator({ seed: 1, employees: 2, rateLimit: 2 })
    try {
      const { access_token } = small.oauth.issueTokens()
      const call = () =>
        fetch(`${small.url}/v1/token_info`, { headers: { authorization: `Bearer ${access_token}` } })
      expect((await call()).status).toBe(200)
      const second = await call()
      expect(second.headers.get('x-ratelimit-remaining')).toBe('0')
      const third = await call()
      expect(third.status).toBe(429)
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(55)
      small.oauth.advance(61)
      expect((await call()).status).toBe(200)
    } finally {
      await small.close()
    }
  })
})
