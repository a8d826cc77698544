import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PosthogEmulator } from '../emulators/posthog/index.js'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import { toJsonSchema } from '../src/mcp/json-schema.js'
import { MODELS, modelOf, permissionsOf } from '../src/models/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, startPosthog } from './support/posthog.js'

type Param = { name: string; in: string }
type OpenApi = {
  paths: Record<string, Record<string, { operationId?: string; parameters?: Param[] }>>
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> }
}

/** Operation ids and list parameters of the official SDK (`listHrisPayslips` and kin). */
const SDK_LISTS: [path: string, operationId: string, filters: string[]][] = [
  ['/hris/{connection_id}/employee', 'listHrisEmployees', ['company_id', 'group_id', 'location_id']],
  ['/hris/{connection_id}/company', 'listHrisCompanies', []],
  ['/hris/{connection_id}/payslip', 'listHrisPayslips', ['company_id', 'user_id']],
  ['/hris/{connection_id}/benefit', 'listHrisBenefits', ['company_id']],
  [
    '/hris/{connection_id}/deduction',
    'listHrisDeductions',
    ['benefit_id', 'company_id', 'payslip_id', 'user_id', 'start_gte', 'end_lt'],
  ],
  ['/hris/{connection_id}/location', 'listHrisLocations', ['company_id', 'parent_id']],
  ['/hris/{connection_id}/group', 'listHrisGroups', ['company_id', 'type']],
  [
    '/ats/{connection_id}/application',
    'listAtsApplications',
    ['candidate_id', 'company_id', 'job_id', 'status'],
  ],
  ['/crm/{connection_id}/contact', 'listCrmContacts', ['company_id', 'deal_id', 'user_id']],
]
const COMMON = ['fields', 'raw', 'limit', 'offset', 'updated_gte', 'sort', 'order', 'query']

describe('the HRIS, ATS and CRM categories', () => {
  let h: Harness
  let emulator: PosthogEmulator
  let conn: string
  let doc: OpenApi

  beforeAll(async () => {
    emulator = await startPosthog()
    h = await startHarness('sqlite')
    conn = await connectPosthog(h, emulator)
    doc = (await h.api<OpenApi>('GET', '/openapi.json', { key: null })).body
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })
  beforeEach(() => emulator.clearRequests())

  describe('the OpenAPI document', () => {
    it('lists every list route under its SDK operation id with exactly the SDK list parameters', () => {
      for (const [path, operationId, filters] of SDK_LISTS) {
        const get = doc.paths[path]?.get
        expect(get?.operationId, path).toBe(operationId)
        expect(
          get?.parameters
            ?.filter((p) => p.in === 'query')
            .map((p) => p.name)
            .sort(),
          path,
        ).toEqual([...COMMON, ...filters].sort())
      }
    })

    it('lists the item routes, and writes only where the SDK has them', () => {
      const employee = doc.paths['/hris/{connection_id}/employee/{id}']
      expect(employee?.get?.operationId).toBe('getHrisEmployee')
      expect(employee?.put?.operationId).toBe('updateHrisEmployee')
      expect(employee?.patch?.operationId).toBe('patchHrisEmployee')
      expect(employee?.delete?.operationId).toBe('removeHrisEmployee')
      expect(doc.paths['/hris/{connection_id}/employee']?.post?.operationId).toBe('createHrisEmployee')
      expect(doc.paths['/hris/{connection_id}/payslip/{id}']?.get?.operationId).toBe('getHrisPayslip')
      // The SDK has no payslip writes.
      expect(doc.paths['/hris/{connection_id}/payslip']?.post).toBeUndefined()
      expect(doc.paths['/hris/{connection_id}/payslip/{id}']?.delete).toBeUndefined()
      expect(doc.paths['/crm/{connection_id}/contact/{id}']?.get?.operationId).toBe('getCrmContact')
      expect(doc.paths['/ats/{connection_id}/application/{id}']?.patch?.operationId).toBe(
        'patchAtsApplication',
      )
    })

    it('documents each model with the SDK’s fields', () => {
      expect(Object.keys(doc.components.schemas.HrisPayslip?.properties ?? {}).sort()).toEqual(
        [
          'id',
          'created_at',
          'updated_at',
          'company_id',
          'currency',
          'deduction',
          'details',
          'end_at',
          'gross_amount',
          'net_amount',
          'paid_at',
          'payment_reference',
          'payment_type',
          'start_at',
          'user_id',
          'raw',
        ].sort(),
      )
      expect(Object.keys(doc.components.schemas.HrisCompany?.properties ?? {}).sort()).toEqual(
        ['id', 'created_at', 'updated_at', 'address', 'legal_name', 'name', 'raw'].sort(),
      )
    })
  })

  describe('a route of a category the connection’s integration does not serve', () => {
    it('answers 501 naming the integration and the operation, and calls no provider', async () => {
      const res = await h.api<{ statusCode: number; error: string; message: string }>(
        'GET',
        `/hris/${conn}/employee`,
        { query: { company_id: 'c1' } },
      )
      expect(res.status).toBe(501)
      expect(res.body).toMatchObject({ statusCode: 501, error: 'Not Implemented' })
      expect(res.body.message).toBe('PostHog (posthog) does not support list on hris_employee')
      const item = await h.api<{ message: string }>('GET', `/crm/${conn}/contact/ct_1`)
      expect(item.status).toBe(501)
      expect(item.body.message).toBe('PostHog (posthog) does not support get on crm_contact')
      expect(emulator.requests()).toEqual([])
    })

    it('still checks its input first: an unknown filter is a 400 naming it, an unknown connection a 404', async () => {
      const bad = await h.api<{ message: string }>('GET', `/hris/${conn}/payslip`, {
        query: { employee_id: 'e1' },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.message).toMatch(/employee_id/)
      expect(bad.body.message).toMatch(/user_id/)
      const missing = await h.api('GET', '/ats/cn_na_nope/application')
      expect(missing.status).toBe(404)
    })

    it('refuses a write outside the SDK’s enum values with a 400 before anything else', async () => {
      const res = await h.api<{ message: string }>('POST', `/hris/${conn}/employee`, {
        body: { name: 'Ada', employment_status: 'RETIRED' },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toMatch(/employment_status/)
    })

    it('is not a webhook object the connection can watch (501), while an unknown object is a 400 listing them', async () => {
      const body = { connection_id: conn, hook_url: 'https://example.com/hook', event: 'updated' }
      const watched = await h.api<{ message: string }>('POST', '/unified/webhook', {
        body: { ...body, object_type: 'hris_payslip' },
      })
      expect(watched.status).toBe(501)
      expect(watched.body.message).toMatch(/hris_payslip/)
      const unknown = await h.api<{ message: string }>('POST', '/unified/webhook', {
        body: { ...body, object_type: 'hris_paycheck' },
      })
      expect(unknown.status).toBe(400)
      for (const type of ['hris_employee', 'hris_payslip', 'hris_company', 'ats_application', 'crm_contact'])
        expect(unknown.body.message).toContain(type)
    })

    it('cannot be granted to the connection: its permissions are refused naming them', async () => {
      const res = await h.api<{ message: string }>('PATCH', `/unified/connection/${conn}`, {
        body: { permissions: ['analytics_event_read', 'hris_employee_read'] },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toMatch(/hris_employee_read/)
    })
  })

  describe('category filters', () => {
    it('accept hris, ats and crm, and refuse an unknown category naming the parameter', async () => {
      const hris = await h.api<{ type: string }[]>('GET', '/unified/integration', {
        query: { categories: 'hris' },
      })
      expect(hris.status).toBe(200)
      // Exactly the integrations whose definitions name the category.
      expect(hris.body.map((i) => i.type).sort()).toEqual(
        INTEGRATIONS.filter((i) => i.categories.includes('hris'))
          .map((i) => i.type)
          .sort(),
      )
      const analytics = await h.api<{ type: string }[]>('GET', '/unified/integration', {
        query: { categories: 'analytics,crm' },
      })
      expect(analytics.body.map((i) => i.type)).toContain('posthog')
      const typo = await h.api<{ message: string }>('GET', '/unified/integration', {
        query: { categories: 'hrs' },
      })
      expect(typo.status).toBe(400)
      expect(typo.body.message).toBe('categories: hrs not served here; use analytics, hris, ats, crm')
      const conns = await h.api<unknown[]>('GET', '/unified/connection', { query: { categories: 'ats' } })
      expect(conns.status).toBe(200)
      expect(conns.body).toEqual([])
    })

    it('name the first few unknown categories and how many more, not every one', async () => {
      const many = Array.from({ length: 1000 }, (_, i) => `c${i}`).join(',')
      const typo = await h.api<{ message: string }>('GET', '/unified/integration', {
        query: { categories: many },
      })
      expect(typo.status).toBe(400)
      expect(typo.body.message).toBe(
        'categories: c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 990 more not served here; use analytics, hris, ats, crm',
      )
    })

    it('read a category named many times as once (SQLite refused the query it made: a 500)', async () => {
      const many = Array(1200).fill('analytics').join(',')
      const conns = await h.api<{ id: string }[]>('GET', '/unified/connection', {
        query: { categories: many },
      })
      expect(conns.status, conns.text).toBe(200)
      expect(conns.body.map((c) => c.id)).toContain(conn)
    })

    it('filter the embeddable component by cat=, refusing an unknown one', async () => {
      const hris = await h.api('GET', '/docs/unified.js', {
        key: null,
        query: { wid: h.workspaceId, did: 'x', cat: 'hris' },
      })
      expect(hris.status).toBe(200)
      expect(hris.text).not.toContain('"posthog"')
      const analytics = await h.api('GET', '/docs/unified.js', {
        key: null,
        query: { wid: h.workspaceId, did: 'x', cat: 'analytics' },
      })
      expect(analytics.text).toContain('"posthog"')
      const typo = await h.api<{ message: string }>('GET', '/docs/unified.js', {
        key: null,
        query: { wid: h.workspaceId, did: 'x', cat: 'recruiting' },
      })
      expect(typo.status).toBe(400)
      expect(typo.body.message).toMatch(/^cat: recruiting not served here/)
    })

    it('take a link_url only as an http(s) address or a path: a javascript: one would run as the link', async () => {
      for (const link_url of [
        'javascript:alert(1)//{type}',
        ' javascript:alert(1)',
        'data:text/html,x',
        'ftp://x/{type}',
      ]) {
        const res = await h.api<{ message: string }>('GET', '/docs/unified.js', {
          key: null,
          query: { wid: h.workspaceId, did: 'x', link_url },
        })
        expect(res.status, `${link_url}: ${res.text}`).toBe(400)
        expect(res.body.message).toMatch(/^link_url: /)
        expect(res.text).not.toContain('alert(1)')
      }
      for (const link_url of ['https://app.example.com/connect/{type}', '/connect/{type}']) {
        const res = await h.api('GET', '/docs/unified.js', {
          key: null,
          query: { wid: h.workspaceId, did: 'x', link_url },
        })
        expect(res.status, `${link_url}: ${res.text}`).toBe(200)
        expect(res.text).toContain(JSON.stringify(link_url).slice(1, -1))
      }
    })

    it('answer a parameter of the embeddable component given twice with a 400 naming it (wid was a 500)', async () => {
      for (const name of ['wid', 'did', 'env', 'state']) {
        const query = { wid: h.workspaceId, did: 'x', [name]: [name === 'wid' ? h.workspaceId : 'a', 'b'] }
        const res = await h.api<{ message: string }>('GET', '/docs/unified.js', { key: null, query })
        expect(res.status, `${name}: ${res.text}`).toBe(400)
        expect(res.body.message).toMatch(new RegExp(`^${name}: give it once`))
      }
    })
  })
})

describe('the models, against the SDK’s wire contract', () => {
  const model = (type: string) => {
    const m = modelOf(type)
    if (!m) throw new Error(`no model ${type}`)
    return m
  }

  it('names read and write permissions for every object', () => {
    expect(permissionsOf(model('hris_employee'))).toEqual(['hris_employee_read', 'hris_employee_write'])
    expect(permissionsOf(model('hris_payslip'))).toEqual(['hris_payslip_read'])
    expect(permissionsOf(model('ats_application'))).toEqual(['ats_application_read', 'ats_application_write'])
    expect(permissionsOf(model('crm_contact'))).toEqual(['crm_contact_read', 'crm_contact_write'])
    const categories = new Set(MODELS.map((m) => m.category))
    expect([...categories]).toEqual(['analytics', 'hris', 'ats', 'crm'])
  })

  it('makes every top-level field optional, as the SDK does', () => {
    for (const m of MODELS.filter((x) => x.category !== 'analytics')) {
      expect((m.schema as { required?: string[] }).required ?? [], m.objectType).toEqual([])
    }
  })

  it('requires what the SDK requires inside nested objects', () => {
    const employee = toJsonSchema(model('hris_employee').schema).properties!
    expect(employee.emails?.items?.required).toEqual(['email'])
    expect(employee.telephones?.items?.required).toEqual(['telephone'])
    expect(employee.employment_status?.description).toMatch(/One of: ACTIVE, INACTIVE\./)
    expect(employee.groups?.items?.properties?.type?.description).toMatch(/DEPARTMENT/)
    expect(employee.address?.properties && Object.keys(employee.address.properties).sort()).toEqual([
      'address1',
      'address2',
      'city',
      'country',
      'country_code',
      'postal_code',
      'region',
      'region_code',
    ])
    const payslip = toJsonSchema(model('hris_payslip').schema).properties!
    expect(payslip.details?.items?.required).toEqual(['amount'])
    const application = toJsonSchema(model('ats_application').schema).properties!
    expect(application.answers?.items?.required?.sort()).toEqual(['answers', 'question_id'])
    const contact = toJsonSchema(model('crm_contact').schema).properties!
    // CrmEmail.email is optional in the SDK, unlike HrisEmail.email.
    expect(contact.emails?.items?.required ?? []).toEqual([])
    expect(contact.telephones?.items?.required).toEqual(['telephone'])
    expect(
      contact.metadata?.items?.properties && Object.keys(contact.metadata.items.properties).sort(),
    ).toEqual(['extra_data', 'format', 'id', 'namespace', 'slug', 'value'])
  })
})
