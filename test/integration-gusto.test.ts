import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_GUSTO_CLIENT, type GustoEmulator, startGustoEmulator } from '../emulators/gusto/index.js'
import { type AuthServer, browserGet, browserPost, startAuthServer } from './support/auth-server.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

type Rec = Record<string, unknown>

/** The `auth` of a connection holding tokens the emulator issued. */
function heldTokens(emu: GustoEmulator) {
  const tokens = emu.oauth.issueTokens()
  return {
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    client_id: DEFAULT_GUSTO_CLIENT.clientId,
    client_secret: DEFAULT_GUSTO_CLIENT.clientSecret,
    api_url: emu.url,
  }
}

describe('Gusto through Unigate', () => {
  let h: Harness
  let emu: GustoEmulator
  let conn: string
  const base = () => `/hris/${conn}`
  const requests = (pathPart: string | RegExp) =>
    emu
      .requests()
      .filter((r) => (typeof pathPart === 'string' ? r.path.includes(pathPart) : pathPart.test(r.path)))
  const company = () => emu.state.companyUuid
  /** What Gusto would pay: every employee's compensation in every processed payroll, in check-date order. */
  const paid = () =>
    [...emu.state.payrolls]
      .filter((p) => p.processed)
      .sort((a, b) => a.checkDate.localeCompare(b.checkDate) || a.uuid.localeCompare(b.uuid))
      .flatMap((p) => p.compensations.map((c) => `${p.uuid}:${c.employee_uuid}`))

  useEmulatorSuite({
    start: () => startGustoEmulator({ seed: 4, employees: 130 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      // The workspace's Gusto app: connections record its token address and refresh there.
      const app = await h.api('PUT', '/unified/workspace/oauth_app/gusto', {
        body: {
          client_id: DEFAULT_GUSTO_CLIENT.clientId,
          client_secret: DEFAULT_GUSTO_CLIENT.clientSecret,
          authorize_url: `${emu.url}/oauth/authorize`,
          token_url: `${emu.url}/oauth/token`,
          api_url: emu.url,
        },
      })
      expect(app.status, app.text).toBe(200)
      conn = await createConnection(h, { integration_type: 'gusto', auth: heldTokens(emu) })
    },
  })

  it('pages employees with page and per, at most 100 a page, with the API version and the bearer token', async () => {
    const ids = emu.state.employees.map((e) => e.uuid)
    const all = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { limit: 150 } })
    expect(all.status).toBe(200)
    expect(all.body.map((e) => e.id)).toEqual(ids)
    expect(requests('/employees').map((r) => [r.query.page, r.query.per])).toEqual([
      ['1', '100'],
      ['2', '100'],
    ])
    expect(requests('/employees')[0]?.path).toBe(`/v1/companies/${company()}/employees`)
    expect(requests('/employees')[0]?.headers).toMatchObject({ 'x-gusto-api-version': '2025-06-15' })
    expect(String(requests('/employees')[0]?.headers.authorization)).toMatch(/^Bearer \S+$/)
    emu.clearRequests()
    const window = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { offset: 7, limit: 5 } })
    expect(window.body.map((e) => e.id)).toEqual(ids.slice(7, 12))
    expect(requests('/employees').map((r) => [r.query.page, r.query.per])).toEqual([
      ['2', '5'],
      ['3', '5'],
    ])
    const first = emu.state.employees[0]
    expect(all.body[0]).toMatchObject({
      first_name: first?.first_name,
      last_name: first?.last_name,
      company_id: company(),
      hired_at: `${first?.hired_at}T00:00:00.000Z`,
      employment_status: first?.terminatedOn ? 'INACTIVE' : 'ACTIVE',
    })
  })

  it('reads an employee by the id a list gave; 404 for an unknown one', async () => {
    const [listed] = (await h.api<Rec[]>('GET', `${base()}/employee`, { query: { limit: 1 } })).body
    const got = await h.api<Rec>('GET', `${base()}/employee/${listed?.id}`)
    expect(got.body).toEqual(listed)
    expect((await h.api('GET', `${base()}/employee/00000000-0000-4000-8000-000000000000`)).status).toBe(404)
    // Gusto's `phone` says nothing of what kind of number it is, so none is claimed.
    const withPhone = emu.state.employees.find((e) => e.phone) as { uuid: string; phone: string }
    const phoned = await h.api<Rec>('GET', `${base()}/employee/${withPhone.uuid}`, {
      query: { fields: 'telephones' },
    })
    expect(phoned.body.telephones).toEqual([{ telephone: withPhone.phone }])
    const raw = await h.api<Rec>('GET', `${base()}/employee/${listed?.id}`, {
      query: { fields: 'id,raw.jobs' },
    })
    expect(Object.keys(raw.body)).toEqual(['id', 'raw'])
    expect(Object.keys(raw.body.raw as Rec)).toEqual(['jobs'])
    const whole = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { fields: 'name,raw', limit: 2 } })
    expect(whole.body.map((e) => (e.raw as Rec).uuid)).toEqual(
      emu.state.employees.slice(0, 2).map((e) => e.uuid),
    )
  })

  it('filters employees by location, department and name at Gusto', async () => {
    const location = String(emu.state.locations[0]?.uuid)
    const atLocation = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { location_id: location, limit: 500 },
    })
    expect(atLocation.body.map((e) => e.id)).toEqual(
      emu.state.employees.filter((e) => e.locationUuid === location).map((e) => e.uuid),
    )
    expect(requests('/employees')[0]?.query.location_uuid).toBe(location)
    const department = emu.state.departments[1] as { uuid: string; employees: { uuid: string }[] }
    const inDepartment = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { group_id: department.uuid, limit: 500 },
    })
    expect(inDepartment.body.map((e) => e.id).sort()).toEqual(department.employees.map((e) => e.uuid).sort())
    expect(requests(`/v1/departments/${department.uuid}`)).toHaveLength(1)
    const name = emu.state.employees[3]?.last_name as string
    const named = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { query: name, limit: 500 } })
    expect(named.body.length).toBeGreaterThan(0)
    expect(named.body.every((e) => e.last_name === name || String(e.first_name).includes(name))).toBe(true)
    expect(requests('/employees').at(-1)?.query.search_term).toBe(name)
  })

  it('serves the company, its locations and departments', async () => {
    const companies = await h.api<Rec[]>('GET', `${base()}/company`)
    expect(companies.body).toEqual([
      expect.objectContaining({
        id: company(),
        name: 'Emulated Payroll',
        legal_name: 'Emulated Payroll, LLC',
      }),
    ])
    expect((await h.api<Rec>('GET', `${base()}/company/${company()}`)).body.id).toBe(company())
    emu.clearRequests()
    expect((await h.api('GET', `${base()}/company/00000000-0000-4000-8000-000000000000`)).status).toBe(404)
    // Another company is outside the grant: answered without asking Gusto (which may call it forbidden).
    expect(requests('/v1/companies/')).toHaveLength(0)
    const locations = await h.api<Rec[]>('GET', `${base()}/location`)
    expect(locations.body.map((l) => [l.id, l.is_active])).toEqual(
      emu.state.locations.map((l) => [l.uuid, l.active]),
    )
    const groups = await h.api<Rec[]>('GET', `${base()}/group`, { query: { type: 'DEPARTMENT' } })
    expect(groups.body.map((g) => g.name)).toEqual(['Engineering', 'Sales', 'Operations'])
    expect((await h.api<Rec[]>('GET', `${base()}/group`, { query: { type: 'TEAM' } })).body).toEqual([])
    const bad = await h.api<Rec>('GET', `${base()}/group`, { query: { type: 'SQUAD' } })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('type')
  })

  it('lists every payslip of every processed payroll, a year of check dates per payroll list call', async () => {
    const expected = paid()
    const res = await h.api<Rec[]>('GET', `${base()}/payslip`, { query: { limit: 1000, fields: 'id' } })
    expect(res.status).toBe(200)
    expect(res.body.map((p) => p.id)).toEqual(expected.slice(0, 1000))
    const lists = requests(new RegExp(`^/v1/companies/${company()}/payrolls$`))
    // 400 days of history plus three months ahead: two one-year windows by check date.
    expect(lists).toHaveLength(2)
    expect(lists[0]?.query).toMatchObject({
      processing_statuses: 'processed',
      payroll_types: 'regular,off_cycle',
      date_filter_by: 'check_date',
      start_date: String(emu.state.company.join_date),
    })
    const unprocessed = emu.state.payrolls.filter((p) => !p.processed).map((p) => p.uuid)
    expect(unprocessed.length).toBeGreaterThan(0)
    expect(res.body.some((p) => unprocessed.includes(String(p.id).split(':')[0] as string))).toBe(false)
  })

  it('reads the next page of payslips from where the last one ended, without walking the payrolls again', async () => {
    const expected = paid()
    const page = async (offset: number) =>
      (
        await h.api<Rec[]>('GET', `${base()}/payslip`, { query: { offset, limit: 50, fields: 'id' } })
      ).body.map((p) => p.id)
    expect(await page(0)).toEqual(expected.slice(0, 50))
    emu.clearRequests()
    expect(await page(50)).toEqual(expected.slice(50, 100))
    // Only the payrolls holding positions 50 to 99 are read again, none before them.
    const read = new Set(requests(/\/payrolls\/[^/]+$/).map((r) => r.path.split('/').at(-1)))
    expect(read).toEqual(new Set(expected.slice(50, 100).map((id) => id.split(':')[0])))
  })

  it('adds a raw include to the taxes, benefits and deductions a payslip reads, never replacing them', async () => {
    // `raw` is "added to the provider request" (spec 4.1): a raw include=taxes replaced Unigate's list, and
    // every payslip lost its benefit lines without a word.
    const employee = emu.state.employees[5]?.uuid as string
    const query = { user_id: employee, limit: 3, fields: 'id,details' }
    const plain = await h.api<Rec[]>('GET', `${base()}/payslip`, { query })
    const withRaw = await h.api<Rec[]>('GET', `${base()}/payslip`, {
      query: { ...query, raw: 'include=taxes' },
    })
    expect(withRaw.status).toBe(200)
    expect(withRaw.body).toEqual(plain.body)
  })

  it('maps a payslip and reads it back by its id; filters by user_id and updated_gte', async () => {
    const employee = emu.state.employees[5]?.uuid as string
    const mine = await h.api<Rec[]>('GET', `${base()}/payslip`, { query: { user_id: employee, limit: 1000 } })
    expect(mine.status).toBe(200)
    const expected = paid().filter((id) => id.endsWith(`:${employee}`))
    expect(mine.body.map((p) => p.id)).toEqual(expected)
    const slip = mine.body.at(-1) as Rec
    expect(slip).toMatchObject({ user_id: employee, company_id: company(), currency: 'USD' })
    expect(typeof slip.gross_amount).toBe('number')
    expect((slip.details as Rec[]).some((d) => d.type === 'TAX_FEDERAL')).toBe(true)
    // `amount` is what the employee paid: the lines that are not earnings add up to gross minus net, and
    // the employer's taxes are `company_amount` only.
    const details = slip.details as Rec[]
    const earning = (d: Rec) => /^EARNING|^REIMBURSEMENT$/.test(String(d.type ?? ''))
    const withheld = details.filter((d) => !earning(d)).reduce((n, d) => n + Number(d.amount), 0)
    expect(Math.abs(Number(slip.gross_amount) - Number(slip.net_amount) - withheld)).toBeLessThan(0.05)
    expect(details.filter((d) => d.name === 'Medicare')).toEqual([
      expect.objectContaining({
        type: 'TAX_FEDERAL',
        amount: expect.any(Number),
        employee_amount: expect.any(Number),
      }),
      { name: 'Medicare', type: 'TAX_FEDERAL', amount: 0, company_amount: expect.any(Number) },
    ])
    expect(details.find((d) => d.name === 'CA State Income Tax')).toMatchObject({ type: 'TAX_REGION' })
    expect(requests(/\/payrolls\/[^/]+$/)[0]?.query).toMatchObject({
      include: 'taxes,benefits,deductions',
      per: '100',
    })
    const got = await h.api<Rec>('GET', `${base()}/payslip/${encodeURIComponent(String(slip.id))}`)
    expect(got.status).toBe(200)
    expect(got.body).toEqual(slip)
    expect((await h.api('GET', `${base()}/payslip/not-a-payslip`)).status).toBe(404)

    const recent = emu.state.payrolls.filter((p) => p.processed).at(-2)
    const since = `${recent?.processedDate}T12:00:00Z`
    const updated = await h.api<Rec[]>('GET', `${base()}/payslip`, {
      query: { updated_gte: since, limit: 1000 },
    })
    const days = new Set(updated.body.map((p) => String(p.updated_at).slice(0, 10)))
    expect([...days].every((d) => d >= String(recent?.processedDate))).toBe(true)
    expect(updated.body).toHaveLength(
      emu.state.payrolls
        .filter((p) => p.processed && String(p.processedDate) >= String(recent?.processedDate))
        .reduce((n, p) => n + p.compensations.length, 0),
    )
  })

  it('finds an off-cycle payroll processed lately for an old pay period, with and without updated_gte', async () => {
    const correction = emu.state.payrolls.find((p) => p.offCycle)
    expect(correction?.processed).toBe(true)
    const ids = (correction?.compensations ?? []).map((c) => `${correction?.uuid}:${c.employee_uuid}`)
    expect(ids.length).toBeGreaterThan(0)
    const all = await h.api<Rec[]>('GET', `${base()}/payslip`, { query: { limit: 1000, fields: 'id' } })
    expect(all.body.map((p) => p.id)).toEqual(paid().slice(0, 1000))
    const since = `${correction?.processedDate}T00:00:00Z`
    const recent = await h.api<Rec[]>('GET', `${base()}/payslip`, {
      query: { updated_gte: since, limit: 1000 },
    })
    expect(recent.status).toBe(200)
    expect(recent.body.map((p) => p.id)).toEqual(expect.arrayContaining(ids))
    const slip = recent.body.find((p) => p.id === ids[0]) as Rec
    // Its pay period is the old one it corrects; it was paid on its own check date.
    expect(slip).toMatchObject({
      start_at: `${correction?.periodStart}T00:00:00.000Z`,
      end_at: `${correction?.periodEnd}T00:00:00.000Z`,
      paid_at: `${correction?.checkDate}T00:00:00.000Z`,
    })
  })

  it('keeps an employee working out a scheduled termination active', async () => {
    const scheduled = emu.state.employees[1]
    expect(String(scheduled?.terminatedOn) > new Date().toISOString().slice(0, 10)).toBe(true)
    const got = await h.api<Rec>('GET', `${base()}/employee/${scheduled?.uuid}`)
    expect(got.body).toMatchObject({
      employment_status: 'ACTIVE',
      terminated_at: `${scheduled?.terminatedOn}T00:00:00.000Z`,
    })
  })

  it('gives no compensation, and still the employee, when the Gusto app may not read pay rates', async () => {
    // Gusto answers a job's `rate`, `payment_unit`, `current_compensation_uuid` and `compensations` only to
    // an app with `compensations:read` (get-v1-companies-company_id-employees, get-v1-employees).
    const first = emu.state.employees[0]
    const withRates = await h.api<Rec>('GET', `${base()}/employee/${first?.uuid}`)
    expect(withRates.body.compensation).toEqual([
      expect.objectContaining({ amount: Number(first?.rate), currency: 'USD', type: 'SALARY' }),
    ])
    const scopes = ['companies:read', 'employees:read', 'jobs:read']
    const tokens = emu.oauth.issueTokens(DEFAULT_GUSTO_CLIENT.clientId, scopes)
    const payless = await createConnection(h, {
      integration_type: 'gusto',
      auth: { ...heldTokens(emu), access_token: tokens.access_token, refresh_token: tokens.refresh_token },
    })
    const listed = await h.api<Rec[]>('GET', `/hris/${payless}/employee`, {
      query: { limit: 3, fields: 'id,title,compensation,raw' },
    })
    expect(listed.status).toBe(200)
    expect(listed.body.map((e) => e.id)).toEqual(emu.state.employees.slice(0, 3).map((e) => e.uuid))
    for (const e of listed.body) {
      expect(e.compensation).toBeUndefined()
      expect(e.title).toBeTruthy()
      expect((e.raw as { jobs: Rec[] }).jobs[0]).not.toHaveProperty('rate')
    }
  })

  it('serves benefits, and deductions per employee or per benefit; a list naming neither is a 400 naming employees', async () => {
    const benefits = await h.api<Rec[]>('GET', `${base()}/benefit`)
    expect(benefits.body.map((b) => b.type)).toEqual([
      'HEALTH',
      'DENTAL',
      'RETIREMENT',
      'LONG_TERM_DISABILITY',
    ])
    const plan = benefits.body[2] as Rec
    expect((await h.api<Rec>('GET', `${base()}/benefit/${plan.id}`)).body).toEqual(plan)

    const plain = await h.api<Rec>('GET', `${base()}/deduction`)
    expect(plain.status).toBe(400)
    expect(plain.body.message).toContain('user_id')
    expect(plain.body.message).toContain(emu.state.employees[0]?.uuid)

    const garnished = emu.state.garnishments[0]?.employee_uuid as string
    const theirs = await h.api<Rec[]>('GET', `${base()}/deduction`, { query: { user_id: garnished } })
    const ids = theirs.body.map((d) => d.id)
    expect(ids).toEqual([
      ...emu.state.employeeBenefits.filter((b) => b.employee_uuid === garnished).map((b) => b.uuid),
      ...emu.state.garnishments.filter((g) => g.employee_uuid === garnished).map((g) => g.uuid),
    ])
    for (const d of theirs.body) {
      const got = await h.api<Rec>('GET', `${base()}/deduction/${d.id}`)
      expect(got.status).toBe(200)
      expect(got.body).toEqual(d)
    }
    const enrolled = await h.api<Rec[]>('GET', `${base()}/deduction`, {
      query: { benefit_id: String(plan.id), limit: 500 },
    })
    expect(enrolled.body.map((d) => d.id)).toEqual(
      emu.state.employeeBenefits.filter((b) => b.company_benefit_uuid === plan.id).map((b) => b.uuid),
    )
    expect(enrolled.body.every((d) => d.benefit_id === plan.id)).toBe(true)
    expect((await h.api('GET', `${base()}/deduction/00000000-0000-4000-8000-000000000000`)).status).toBe(404)
    const nobody = '00000000-0000-4000-8000-000000000000'
    for (const [filter, path] of [
      ['user_id', 'deduction'],
      ['benefit_id', 'deduction'],
      ['group_id', 'employee'],
    ] as const) {
      const res = await h.api<Rec>('GET', `${base()}/${path}`, { query: { [filter]: nobody } })
      expect([filter, res.status]).toEqual([filter, 400])
      expect(res.body.message).toContain(filter)
    }
  })

  it('renews an expired token with the refresh token; the old pair retires when the new token is used', async () => {
    const auth = heldTokens(emu)
    const renewing = await createConnection(h, { integration_type: 'gusto', auth })
    emu.oauth.advance(7201)
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', `/hris/${renewing}/company`)
    expect(res.status).toBe(200)
    const refreshes = requests('/oauth/token')
    expect(refreshes).toHaveLength(1)
    expect(refreshes[0]?.body).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: auth.refresh_token,
    })
    expect(emu.oauth.refreshTokenLive(auth.refresh_token)).toBe(false)
    emu.clearRequests()
    expect((await h.api('GET', `/hris/${renewing}/location`)).status).toBe(200)
    expect(requests('/oauth/token')).toHaveLength(0)
  })

  it('answers 403 asking to re-authorize when Gusto refuses the token, and passes a lasting 429 on', async () => {
    emu.fault({ status: 401, times: 5, pathPattern: '/locations' })
    const refused = await h.api<Rec>('GET', `${base()}/location`)
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('re-authorize')
    emu.clearFaults()
    emu.fault({ status: 429, times: 1, pathPattern: '/departments', headers: { 'retry-after': '1' } })
    expect((await h.api('GET', `${base()}/group`)).status).toBe(200)
    emu.fault({ status: 429, times: 10, pathPattern: '/departments', headers: { 'retry-after': '50' } })
    const limited = await h.api<Rec>('GET', `${base()}/group`)
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('50')
  })

  it('watches payslips for created only: a processed payroll never changes', async () => {
    const hook = (event: string) =>
      h.api<{ id?: string; message?: string }>('POST', '/unified/webhook', {
        body: {
          connection_id: conn,
          object_type: 'hris_payslip',
          event,
          hook_url: 'http://127.0.0.1:9/hook',
          interval: 60,
        },
      })
    const updated = await hook('updated')
    expect(updated.status).toBe(400)
    expect(updated.body.message).toMatch(/never changes hris_payslip.*subscribe to created/)
    const created = await hook('created')
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    expect((await h.api('DELETE', `/unified/webhook/${created.body.id}`)).status).toBeLessThan(300)
  })

  it("refuses a raw page or per, which would read one of Gusto's pages again without end", async () => {
    const slip = paid()[0] as string
    emu.clearRequests()
    for (const [path, raw] of [
      [`${base()}/payslip/${encodeURIComponent(slip)}`, 'page=1'],
      [`${base()}/payslip`, 'per=5'],
      [`${base()}/employee`, 'page=2'],
    ] as const) {
      const res = await h.api<Rec>('GET', path, { query: { raw } })
      expect(res.status, path).toBe(400)
      expect(String(res.body.message)).toContain(`raw: '${raw.split('=')[0]}'`)
    }
    // Refused before a page of payroll or employees was read.
    expect(requests(/\/payrolls\/[^/]+$/)).toEqual([])
    expect(requests('/employees')).toEqual([])
  })

  it('refuses a raw search_term, location_uuid, or uuids beside group_id, instead of one silently replacing the unified filter', async () => {
    const department = emu.state.departments[1] as { uuid: string }
    emu.clearRequests()
    for (const [raw, query, why] of [
      ['search_term=Smith', { query: 'Jones' }, "raw: 'search_term' is set by Unigate for Gusto; use query"],
      [
        'location_uuid=elsewhere',
        { location_id: 'here' },
        "raw: 'location_uuid' is set by Unigate for Gusto; use location_id",
      ],
      ['uuids=someone', { group_id: department.uuid }, 'raw: uuids and group_id'],
    ] as const) {
      const res = await h.api<Rec>('GET', `${base()}/employee`, { query: { raw, ...query } })
      expect(res.status, raw).toBe(400)
      expect(String(res.body.message)).toContain(why)
    }
    expect(requests('/employees')).toEqual([])
    // Alone, a raw uuids still narrows the list at Gusto.
    const one = emu.state.employees[2]?.uuid as string
    const res = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { raw: `uuids=${one}` } })
    expect(res.status).toBe(200)
    expect(requests('/employees').at(-1)?.query.uuids).toBe(one)
  })

  it('answers 501 for writes and for parameters Gusto cannot apply', async () => {
    expect((await h.api('POST', `${base()}/employee`, { body: { first_name: 'A' } })).status).toBe(501)
    const sorted = await h.api<Rec>('GET', `${base()}/payslip`, { query: { company_id: company() } })
    expect(sorted.status).toBe(501)
    expect(sorted.body.message).toContain('Gusto (gusto)')
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'gusto')
    expect(Object.keys(support).sort()).toEqual([
      'hris_benefit',
      'hris_company',
      'hris_deduction',
      'hris_employee',
      'hris_group',
      'hris_location',
      'hris_payslip',
    ])
    const employee = emu.state.employees[0]?.uuid as string
    const payroll = emu.state.payrolls.find(
      (p) => p.processed && p.compensations.some((c) => c.employee_uuid === employee),
    )
    const ids: Record<string, string> = {
      hris_benefit: String(emu.state.companyBenefits[0]?.uuid),
      hris_company: company(),
      hris_deduction: String(emu.state.employeeBenefits[0]?.uuid),
      hris_employee: employee,
      hris_group: String(emu.state.departments[0]?.uuid),
      hris_location: String(emu.state.locations[0]?.uuid),
      hris_payslip: `${payroll?.uuid}:${employee}`,
    }
    await expectSupportMatrixAnswers(h, base(), support, {
      query: ({ object }): Record<string, string> =>
        object === 'hris_deduction' ? { user_id: employee } : { limit: '5' },
      body: () => ({}),
      id: ({ object }) => encodeURIComponent(ids[object] as string),
    })
  })
})

describe('Gusto rate limit (emulated window)', () => {
  let h: Harness
  let emu: GustoEmulator
  let conn: string
  useEmulatorSuite({
    start: () => startGustoEmulator({ seed: 2, employees: 3, rateLimit: 3 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, { integration_type: 'gusto', auth: heldTokens(emu) })
    },
  })

  it('passes Gusto 429 and its Retry-After on once the grant has used its window', async () => {
    // Verification made two calls of the window's three; the third succeeds, the fourth is refused.
    expect((await h.api('GET', `/hris/${conn}/location`)).status).toBe(200)
    const limited = await h.api<Rec>('GET', `/hris/${conn}/location`)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(2)
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60)
    const refused = emu.requests().filter((r) => r.path.endsWith('/locations'))
    expect(refused.length).toBeGreaterThanOrEqual(2)
  })
})

describe('Gusto authorization through Unigate', () => {
  let s: AuthServer
  let emu: GustoEmulator
  const APP = 'https://app.example.com'
  beforeAll(async () => {
    emu = await startGustoEmulator({ seed: 3, employees: 5 })
    s = await startAuthServer('sqlite')
    await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [APP] })
    emu.oauth.registerClient({
      clientId: 'gusto-app',
      clientSecret: 'gusto-app-secret',
      redirectUris: [`${s.url}/unified/integration/oauth/callback`],
      name: 'Unigate test',
    })
    const app = await s.api('PUT', '/unified/workspace/oauth_app/gusto', {
      client_id: 'gusto-app',
      client_secret: 'gusto-app-secret',
      authorize_url: `${emu.url}/oauth/authorize`,
      token_url: `${emu.url}/oauth/token`,
      api_url: emu.url,
    })
    expect(app.status).toBe(200)
  })
  afterAll(async () => {
    await s?.close()
    await emu?.close()
  })

  it('sends the admin to Gusto without scopes or PKCE, and connects the company they allow', async () => {
    const params = new URLSearchParams({
      success_redirect: `${APP}/ok`,
      failure_redirect: `${APP}/failed`,
      state: 's1',
    })
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/gusto?${params}`)
    expect(start.status).toBe(200)
    const authorize = new URL(start.text)
    expect(authorize.origin + authorize.pathname).toBe(`${emu.url}/oauth/authorize`)
    expect(authorize.searchParams.get('scope')).toBeNull()
    expect(authorize.searchParams.get('code_challenge')).toBeNull()
    expect((await browserGet(authorize.toString())).status).toBe(200)
    const decided = await browserPost(`${emu.url}/oauth/authorize`, {
      ...Object.fromEntries(authorize.searchParams),
      decision: 'allow',
    })
    expect(decided.status).toBe(302)
    const done = await browserGet(decided.location as string)
    expect(done.status).toBe(303)
    const back = new URL(done.location as string)
    expect(back.origin + back.pathname).toBe(`${APP}/ok`)
    const id = back.searchParams.get('id') as string
    const exchange = emu.requests().find((r) => r.path === '/oauth/token')
    expect(exchange?.body).toMatchObject({ grant_type: 'authorization_code', client_id: 'gusto-app' })
    const employees = await s.api<Rec[]>('GET', `/hris/${id}/employee`)
    expect(employees.status).toBe(200)
    expect(employees.body.map((e) => e.id)).toEqual(emu.state.employees.map((e) => e.uuid))
  })
})
