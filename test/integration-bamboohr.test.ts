import { describe, expect, it } from 'vitest'
import {
  type BamboohrEmulator,
  DEFAULT_BAMBOOHR_API_KEY,
  DEFAULT_BAMBOOHR_DOMAIN,
  startBamboohrEmulator,
} from '../emulators/bamboohr/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'

type Rec = Record<string, unknown>

describe('BambooHR through Unigate', () => {
  let h: Harness
  let emu: BamboohrEmulator
  let conn: string
  const base = () => `/hris/${conn}`
  const requests = (pathPart: string) => emu.requests().filter((r) => r.path.includes(pathPart))
  /** The JSON body of the n-th custom report request. */
  const reportBody = (n = 0) =>
    (requests('/reports/custom')[n]?.body ?? {}) as { fields?: string[]; filters?: unknown }
  const employeeIds = () => [...emu.state.employees.keys()].sort((a, b) => a - b).map(String)

  useEmulatorSuite({
    start: () => startBamboohrEmulator({ seed: 7, employees: 40 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'bamboohr',
        auth: {
          api_key: DEFAULT_BAMBOOHR_API_KEY,
          company_domain: DEFAULT_BAMBOOHR_DOMAIN,
          api_url: `${emu.url}/api/gateway.php`,
        },
      })
    },
  })

  it('lists every employee, active and inactive, from one custom report, in id order', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { limit: 1000 } })
    expect(res.status).toBe(200)
    expect(res.body.map((e) => e.id)).toEqual(employeeIds())
    expect(new Set(res.body.map((e) => e.employment_status))).toEqual(new Set(['ACTIVE', 'INACTIVE']))
    const [call] = requests('/reports/custom')
    expect(call?.path).toBe(`/api/gateway.php/${DEFAULT_BAMBOOHR_DOMAIN}/v1/reports/custom`)
    expect(call?.query).toEqual({ format: 'JSON' })
    expect(call?.headers).toMatchObject({
      authorization: `Basic ${Buffer.from(`${DEFAULT_BAMBOOHR_API_KEY}:x`).toString('base64')}`,
      'content-type': 'application/json',
      accept: 'application/json',
    })
    expect(reportBody().fields).toContain('lastChanged')
    expect(reportBody().filters).toBeUndefined()
    const seeded = emu.state.employees.get(100)?.fields as Record<string, string>
    expect(res.body[0]).toMatchObject({
      id: '100',
      company_id: DEFAULT_BAMBOOHR_DOMAIN,
      first_name: seeded.firstName,
      last_name: seeded.lastName,
      hired_at: `${seeded.hireDate}T00:00:00.000Z`,
      emails: [
        { email: seeded.workEmail, type: 'WORK' },
        ...(seeded.homeEmail ? [{ email: seeded.homeEmail, type: 'HOME' }] : []),
      ],
    })
    // An unset date (0000-00-00) is left out, never an invalid date.
    expect(
      res.body.filter((e) => e.employment_status === 'ACTIVE').every((e) => e.terminated_at === undefined),
    ).toBe(true)
  })

  it('says what each pay rate is per, as BambooHR names it (paidPer)', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { limit: 1000 } })
    expect(reportBody().fields).toContain('paidPer')
    const per: Record<string, string> = { Hour: 'HOUR', Year: 'YEAR' }
    for (const e of res.body) {
      const seeded = emu.state.employees.get(Number(e.id))?.fields as Record<string, string>
      expect(e.compensation).toEqual([
        expect.objectContaining({
          amount: Number.parseFloat(seeded.payRate as string),
          currency: 'USD',
          frequency: per[seeded.paidPer as string],
        }),
      ])
    }
  })

  it('leaves out the earlier termination of a rehired employee', async () => {
    const seeded = emu.state.employees.get(102)?.fields as Record<string, string>
    expect(String(seeded.terminationDate) < String(seeded.hireDate)).toBe(true)
    const got = await h.api<Rec>('GET', `${base()}/employee/102`)
    expect(got.body).toMatchObject({
      employment_status: 'ACTIVE',
      hired_at: `${seeded.hireDate}T00:00:00.000Z`,
    })
    expect(got.body.terminated_at).toBeUndefined()
  })

  it('reads one employee by the id a list gave, with the same fields; 404 for an unknown id', async () => {
    const list = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { limit: 3 } })
    const id = list.body[2]?.id as string
    const got = await h.api<Rec>('GET', `${base()}/employee/${id}`)
    expect(got.status).toBe(200)
    expect(got.body).toEqual(list.body[2])
    const read = requests(`/employees/${id}`)[0]
    expect(String(read?.query.fields).split(',')).toContain('supervisorEId')
    const missing = await h.api<Rec>('GET', `${base()}/employee/99999`)
    expect(missing.status).toBe(404)
  })

  it("answers 404 for an id BambooHR would read as another employee's (0 is the key's own, 0100 is 100)", async () => {
    const before = requests('/employees/').length
    for (const id of ['0', `0${employeeIds()[0]}`]) {
      const got = await h.api<Rec>('GET', `${base()}/employee/${id}`)
      expect(got.status, `${id}: ${got.text}`).toBe(404)
      expect(got.body.message).toContain(id)
    }
    expect(requests('/employees/').length, 'not asked of BambooHR').toBe(before)
  })

  it("answers 403 naming BambooHR's access levels for an employee the key may not see, and lists without it", async () => {
    const hidden = employeeIds()[5] as string
    emu.state.hideEmployee(Number(hidden))
    try {
      const got = await h.api<Rec>('GET', `${base()}/employee/${hidden}`)
      expect(got.status).toBe(403)
      expect(got.body.message).toContain('BambooHR answered 403: Permission denied to view employee')
      expect(got.body.message).toContain('access level')
      expect(got.body).not.toHaveProperty('stack')
      // The report leaves the employee out, as BambooHR's own lists do for this key.
      const list = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { limit: 1000, fields: 'id' } })
      expect(list.status).toBe(200)
      expect(list.body.map((e) => e.id)).toEqual(employeeIds().filter((id) => id !== hidden))
      // One employee the key may not see says nothing of the key: the connection stays usable.
      expect((await h.api('GET', `${base()}/employee/${employeeIds()[4]}`)).status).toBe(200)
    } finally {
      emu.state.hidden.delete(Number(hidden))
    }
  })

  it('pages on its side of the one report, one report call per page', async () => {
    const ids = async (offset: number, limit: number) =>
      (await h.api<Rec[]>('GET', `${base()}/employee`, { query: { offset, limit, fields: 'id' } })).body.map(
        (e) => e.id,
      )
    expect(await ids(0, 15)).toEqual(employeeIds().slice(0, 15))
    expect(await ids(15, 15)).toEqual(employeeIds().slice(15, 30))
    expect(await ids(38, 15)).toEqual(employeeIds().slice(38))
    expect(await ids(400, 15)).toEqual([])
    expect(requests('/reports/custom')).toHaveLength(4)
  })

  it('filters updated_gte at BambooHR with lastChanged, leaving never-changed employees out', async () => {
    const since = '2024-03-01T00:00:00Z'
    const res = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { updated_gte: since, limit: 1000 },
    })
    expect(res.status).toBe(200)
    const expected = [...emu.state.employees.values()]
      .filter((e) => e.fields.lastChanged && Date.parse(e.fields.lastChanged) >= Date.parse(since))
      .map((e) => String(e.id))
      .sort((a, b) => Number(a) - Number(b))
    expect(expected.length).toBeGreaterThan(0)
    expect(res.body.map((e) => e.id)).toEqual(expected)
    for (const e of res.body)
      expect(Date.parse(String(e.updated_at))).toBeGreaterThanOrEqual(Date.parse(since))
    expect(reportBody().filters).toEqual({
      lastChanged: { includeNull: 'no', value: '2024-03-01T00:00:00+00:00' },
    })
    // Within a second: the filter goes to BambooHR to the second, and the answer is cut to the instant.
    const changed = [...emu.state.employees.values()].find((e) => e.fields.lastChanged)
    const at = Date.parse(String(changed?.fields.lastChanged))
    const later = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { updated_gte: new Date(at + 500).toISOString(), limit: 1000 },
    })
    expect(later.status).toBe(200)
    expect(reportBody(requests('/reports/custom').length - 1).filters).toEqual({
      lastChanged: { includeNull: 'no', value: `${new Date(at).toISOString().slice(0, 19)}+00:00` },
    })
    expect(later.body.map((e) => e.id)).not.toContain(String(changed?.id))
    for (const e of later.body) expect(Date.parse(String(e.updated_at))).toBeGreaterThan(at)
    const bad = await h.api<Rec>('GET', `${base()}/employee`, { query: { updated_gte: 'yesterday' } })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('updated_gte')
  })

  it('filters employees by group and location id, matched through the list option names', async () => {
    const groups = await h.api<Rec[]>('GET', `${base()}/group`, { query: { type: 'DEPARTMENT' } })
    const sales = groups.body.find((g) => g.name === 'Sales') as Rec
    const res = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { group_id: String(sales.id), limit: 1000 },
    })
    expect(res.status).toBe(200)
    const expected = [...emu.state.employees.values()]
      .filter((e) => e.fields.department === 'Sales')
      .map((e) => String(e.id))
    expect(res.body.map((e) => e.id).sort()).toEqual(expected.sort())
    const locations = await h.api<Rec[]>('GET', `${base()}/location`)
    const berlin = locations.body.find((l) => l.name === 'Berlin') as Rec
    const inBerlin = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { location_id: String(berlin.id), group_id: String(sales.id), limit: 1000 },
    })
    expect(inBerlin.body.every((e) => (e.locations as Rec[])[0]?.name === 'Berlin')).toBe(true)
    expect(inBerlin.body.every((e) => (e.groups as Rec[]).some((g) => g.name === 'Sales'))).toBe(true)
    const unknown = await h.api<Rec>('GET', `${base()}/employee`, { query: { group_id: 'team:5' } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toContain('group_id')
  })

  it("gives an employee's groups and location the ids /group and /location list, as other HRIS do", async () => {
    const groups = (await h.api<Rec[]>('GET', `${base()}/group`)).body
    const locations = (await h.api<Rec[]>('GET', `${base()}/location`)).body
    const employees = (await h.api<Rec[]>('GET', `${base()}/employee`, { query: { limit: 1000 } })).body
    const grouped = employees.filter((e) => Array.isArray(e.groups))
    const located = employees.filter((e) => Array.isArray(e.locations))
    expect(grouped.length).toBeGreaterThan(0)
    expect(located.length).toBeGreaterThan(0)
    for (const e of grouped) {
      for (const g of e.groups as Rec[]) {
        const listed = groups.find((l) => l.id === g.id)
        expect(listed, JSON.stringify(g)).toBeDefined()
        expect([listed?.name, listed?.type]).toEqual([g.name, g.type])
      }
    }
    for (const e of located) {
      const [l] = e.locations as Rec[]
      expect(locations.find((o) => o.id === l?.id)?.name, JSON.stringify(l)).toBe(l?.name)
    }
    // The id an employee carries finds that employee, and the record read alone carries the same ids.
    const first = grouped[0] as Rec
    const group = (first.groups as Rec[])[0] as Rec
    const members = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { group_id: String(group.id), limit: 1000 },
    })
    expect(members.body.map((e) => e.id)).toContain(first.id)
    const one = await h.api<Rec>('GET', `${base()}/employee/${first.id}`)
    expect(one.body.groups).toEqual(first.groups)
    expect(one.body.locations).toEqual(first.locations)
    // Fields that leave groups and locations out cost no list read.
    const before = requests('/meta/lists').length
    const narrow = await h.api<Rec[]>('GET', `${base()}/employee`, { query: { fields: 'id,name' } })
    expect(narrow.status).toBe(200)
    expect(requests('/meta/lists').length).toBe(before)
  })

  it('adds raw.<field> names to what it asks BambooHR for, and returns raw when asked', async () => {
    const res = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { fields: 'id,raw.preferredName,raw.customShirtSize', limit: 2 },
    })
    expect(res.status).toBe(200)
    expect(reportBody().fields).toEqual(expect.arrayContaining(['preferredName', 'customShirtSize']))
    expect(Object.keys(res.body[0] ?? {})).toEqual(['id', 'raw'])
    const whole = await h.api<Rec>('GET', `${base()}/employee/100`, { query: { fields: 'raw' } })
    expect(whole.body.raw).toMatchObject({
      id: '100',
      firstName: emu.state.employees.get(100)?.fields.firstName,
    })
    // BambooHR leaves out what the key's user may not see; so does the record.
    expect((whole.body.raw as Rec).ssn).toBeUndefined()
  })

  it('adds a raw fields list to the fields it asks BambooHR for, never replacing them', async () => {
    // `raw` is "added to the provider request" (spec 4.1): a raw fields=preferredName that replaced the
    // read's field list left every unified field empty; on the report it went to the query string, where
    // BambooHR takes no fields (they are in the body).
    emu.clearRequests()
    const one = await h.api<Rec>('GET', `${base()}/employee/100`, {
      query: { raw: 'fields=preferredName', fields: 'id,first_name,raw.preferredName' },
    })
    expect(one.status).toBe(200)
    const e = emu.state.employees.get(100)?.fields
    expect(one.body.first_name).toBe(e?.firstName)
    expect((one.body.raw as Rec).preferredName).toBe(e?.preferredName)
    const read = requests('/employees/100')[0]?.query.fields as string
    expect(read.split(',')).toEqual(expect.arrayContaining(['firstName', 'preferredName']))
    const list = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { raw: 'fields=customShirtSize', limit: 1 },
    })
    expect(list.status).toBe(200)
    expect(list.body[0]?.first_name).toBeDefined()
    expect(reportBody().fields).toEqual(expect.arrayContaining(['firstName', 'customShirtSize']))
    expect(requests('/reports/custom')[0]?.query.fields).toBeUndefined()
    const csv = await h.api<Rec>('GET', `${base()}/employee`, { query: { raw: 'format=CSV' } })
    expect(csv.status).toBe(400)
    expect(String(csv.body.message)).toContain('format')
  })

  it("sends an employee list's raw parameters to the report that reads the employees, not to the lists a filter reads", async () => {
    const groups = await h.api<Rec[]>('GET', `${base()}/group`)
    const sales = groups.body.find((g) => g.name === 'Sales') as Rec
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', `${base()}/employee`, {
      query: { group_id: String(sales.id), raw: 'fields=customShirtSize', fields: 'id,raw.customShirtSize' },
    })
    expect(res.status).toBe(200)
    expect(res.body.length).toBeGreaterThan(0)
    expect(reportBody().fields).toEqual(expect.arrayContaining(['department', 'customShirtSize']))
    const [lists] = requests('/meta/lists')
    expect(lists?.query).toEqual({})
  })

  it('serves departments and divisions as groups, locations, the company and benefit plans', async () => {
    const groups = await h.api<Rec[]>('GET', `${base()}/group`)
    expect(groups.body.map((g) => [g.name, g.type, g.is_active])).toEqual([
      ['Engineering', 'DEPARTMENT', true],
      ['Sales', 'DEPARTMENT', true],
      ['Support', 'DEPARTMENT', true],
      ['Legacy Ops', 'DEPARTMENT', false],
      ['North America', 'DIVISION', true],
      ['Europe', 'DIVISION', true],
    ])
    const division = groups.body[4]?.id as string
    expect(division).toMatch(/^division:\d+$/)
    expect((await h.api<Rec>('GET', `${base()}/group/${encodeURIComponent(division)}`)).body.name).toBe(
      'North America',
    )
    expect((await h.api<Rec>('GET', `${base()}/group/division:99999`)).status).toBe(404)
    const team = await h.api<Rec>('GET', `${base()}/group`, { query: { type: 'TEAM' } })
    expect(team.status).toBe(400)
    expect(team.body.message).toContain('DEPARTMENT or DIVISION')
    const divisions = await h.api<Rec[]>('GET', `${base()}/group`, { query: { type: 'division' } })
    expect(divisions.body.map((g) => g.name)).toEqual(['North America', 'Europe'])

    const locations = await h.api<Rec[]>('GET', `${base()}/location`)
    expect(locations.body.map((l) => [l.name, l.is_active])).toEqual([
      ['Lindon, Utah', true],
      ['Berlin', true],
      ['Remote', true],
      ['Old Office', false],
    ])

    const companies = await h.api<Rec[]>('GET', `${base()}/company`)
    expect(companies.body).toEqual([
      {
        id: DEFAULT_BAMBOOHR_DOMAIN,
        name: 'Acme Widgets',
        legal_name: 'Acme Widgets, Inc.',
        address: {
          address1: '335 S 560 W',
          address2: 'Suite 200',
          city: 'Lindon',
          region_code: 'UT',
          postal_code: '84042',
        },
      },
    ])
    expect((await h.api('GET', `${base()}/company/${DEFAULT_BAMBOOHR_DOMAIN}`)).status).toBe(200)
    const other = await h.api<Rec>('GET', `${base()}/company/globex`)
    expect(other.status).toBe(404)
    expect(other.body.message).toContain(`'${DEFAULT_BAMBOOHR_DOMAIN}'`)

    const benefits = await h.api<Rec[]>('GET', `${base()}/benefit`)
    expect(benefits.body.map((b) => [b.id, b.type])).toEqual([
      ['1', 'HEALTH'],
      ['2', 'DENTAL'],
      ['3', 'RETIREMENT'],
      ['4', undefined],
    ])
    expect((await h.api<Rec>('GET', `${base()}/benefit/3`)).body.name).toBe('401(k)')
    expect((await h.api('GET', `${base()}/benefit/77`)).status).toBe(404)
  })

  it('answers 501 for what BambooHR cannot do, naming it', async () => {
    for (const path of ['/payslip', '/deduction']) {
      const res = await h.api<Rec>('GET', `${base()}${path}`)
      expect(res.status).toBe(501)
      expect(res.body.message).toContain('BambooHR (bamboohr)')
    }
    const byCompany = await h.api<Rec>('GET', `${base()}/employee`, { query: { company_id: 'acme' } })
    expect(byCompany.status).toBe(501)
    expect(byCompany.body.message).toContain('company_id')
    expect((await h.api('GET', `${base()}/employee`, { query: { query: 'ava' } })).status).toBe(501)
    expect((await h.api('POST', `${base()}/employee`, { body: { first_name: 'New' } })).status).toBe(501)
  })

  it('retries a rate limit, passes a lasting one on with Retry-After, and asks to re-authorize on 401', async () => {
    emu.fault({ status: 503, times: 1, pathPattern: '/reports/custom', headers: { 'retry-after': '1' } })
    expect((await h.api('GET', `${base()}/employee`, { query: { limit: 1 } })).status).toBe(200)
    expect(requests('/reports/custom')).toHaveLength(2)
    emu.fault({ status: 429, times: 10, pathPattern: '/meta/lists', headers: { 'retry-after': '45' } })
    const limited = await h.api<Rec>('GET', `${base()}/group`)
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('45')
    emu.clearFaults()
    emu.fault({ status: 401, pathPattern: '/company_information' })
    const rejected = await h.api<Rec>('GET', `${base()}/company`)
    expect(rejected.status).toBe(403)
    expect(rejected.body.message).toContain('re-authorize')
    // BambooHR's reason arrives in its error header, the body being empty.
    expect(rejected.body.message).toContain('BambooHR answered 401: Invalid API key')
    emu.fault({
      status: 400,
      pathPattern: '/reports/custom',
      headers: { 'x-bamboohr-error-message': 'Unknown field: x' },
    })
    const refused = await h.api<Rec>('GET', `${base()}/employee`)
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe('BambooHR rejected list hris_employee: Unknown field: x')
  })

  it('refuses a connection whose key BambooHR rejects', async () => {
    const res = await h.api<Rec>('POST', '/unified/connection', {
      body: {
        integration_type: 'bamboohr',
        auth: {
          api_key: 'wrong',
          company_domain: DEFAULT_BAMBOOHR_DOMAIN,
          api_url: `${emu.url}/api/gateway.php`,
        },
      },
    })
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
    expect(res.text).not.toContain('wrong')
  })

  it('claims in its support matrix exactly what works', async () => {
    const support = await supportMatrixOf(h, 'bamboohr')
    expect(Object.keys(support).sort()).toEqual([
      'hris_benefit',
      'hris_company',
      'hris_employee',
      'hris_group',
      'hris_location',
    ])
    const ids: Record<string, string> = {
      hris_benefit: '1',
      hris_company: DEFAULT_BAMBOOHR_DOMAIN,
      hris_employee: '100',
      hris_group: 'department:5',
      hris_location: String(emu.state.lists.find((l) => l.alias === 'location')?.options[0]?.id),
    }
    await expectSupportMatrixAnswers(h, base(), support, {
      body: () => ({}),
      id: ({ object }) => encodeURIComponent(ids[object] as string),
    })
  })
})
