import { request as httpRequest } from 'node:http'
import { describe, expect, it, vi } from 'vitest'
import {
  DEFAULT_HUBSPOT_TOKEN,
  type HubspotEmulator,
  startHubspotEmulator,
} from '../emulators/hubspot/index.js'
import type { Harness } from './support/harness.js'
import { connectHubspot } from './support/hubspot.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'
import { watchedWebhook } from './support/watched-webhook.js'
import { startWebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>

describe('HubSpot through Unigate', () => {
  let h: Harness
  let emu: HubspotEmulator
  let conn: string
  const base = () => `/crm/${conn}/contact`
  const sent = (path: string, method?: string) =>
    emu.requests().filter((r) => r.path === path && (method === undefined || r.method === method))
  const searches = () => sent('/crm/v3/objects/contacts/search', 'POST')

  useEmulatorSuite({
    // Searches per second raised: these tests check what is sent, not HubSpot's pace (see its own test).
    start: () => startHubspotEmulator({ seed: 9, contacts: 230, searchPerSecond: 1000 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await connectHubspot(h, emu)
    },
  })

  it('claims exactly the operations that work', async () => {
    const support = await supportMatrixOf(h, 'hubspot')
    await expectSupportMatrixAnswers(h, `/crm/${conn}`, support, {
      body: () => ({
        first_name: 'Matrix',
        emails: [{ email: `m${Date.now()}${Math.random()}@example.com` }],
      }),
      id: async (step) =>
        step.method === 'get' || step.created === '' ? emu.state.liveContacts()[0]!.id : step.created,
    })
  })

  it('refuses a raw after or limit, which Unigate sets while it pages, before calling HubSpot', async () => {
    emu.clearRequests()
    for (const raw of ['after=120', 'limit=5']) {
      const res = await h.api<Rec>('GET', base(), { query: { raw, limit: 10 } })
      expect(res.status, raw).toBe(400)
      expect(String(res.body.message)).toBe(
        `raw: '${raw.split('=')[0]}' is set by Unigate for HubSpot; Unigate pages with limit and offset`,
      )
    }
    expect(emu.requests()).toEqual([])
    // Any other raw parameter still reaches HubSpot.
    const archived = await h.api<Rec[]>('GET', base(), { query: { raw: 'archived=false', limit: 1 } })
    expect(archived.status).toBe(200)
    expect(sent('/crm/v3/objects/contacts')[0]?.query.archived).toBe('false')
  })

  it('refuses an id of .. (which would read another HubSpot address) with a 400, calling HubSpot nothing', async () => {
    emu.clearRequests()
    // Sent as typed (curl --path-as-is): a URL parser on the client's side would resolve the dots away.
    const asTyped = (path: string) =>
      new Promise<{ status?: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(h.url)
        const req = httpRequest({ hostname, port, path, headers: { authorization: `Bearer ${h.apiKey}` } })
        req.on('response', (res) => {
          let body = ''
          res.on('data', (c: Buffer) => (body += c.toString()))
          res.on('end', () => resolve({ status: res.statusCode, body }))
        })
        req.on('error', reject)
        req.end()
      })
    for (const id of ['..', '%2E%2E', '.', '%2e']) {
      const res = await asTyped(`${base()}/${id}`)
      expect(res.status, id).toBe(400)
      expect(res.body, id).toMatch(/is not an id or filter value Unigate sends on/)
    }
    expect(emu.requests()).toEqual([])
  })

  it('pages the plain list with the after cursor, remembering it so the next page is one call', async () => {
    const ids = emu.state.liveContacts().map((c) => c.id)
    const page = async (offset: number, limit: number) =>
      (await h.api<Rec[]>('GET', base(), { query: { offset, limit, fields: 'id' } })).body.map((c) => c.id)
    expect(await page(0, 30)).toEqual(ids.slice(0, 30))
    expect(sent('/crm/v3/objects/contacts').map((r) => r.query.limit)).toEqual(['30'])
    emu.clearRequests()
    expect(await page(30, 30)).toEqual(ids.slice(30, 60))
    const next = sent('/crm/v3/objects/contacts')
    expect(next).toHaveLength(1)
    expect(typeof next[0]?.query.after).toBe('string')
    emu.clearRequests()
    // From the cursor at 60: pages of 100 to reach 195, then what is left of the window.
    expect(await page(195, 50)).toEqual(ids.slice(195, 230))
    expect(sent('/crm/v3/objects/contacts').map((r) => r.query.limit)).toEqual(['100', '35', '50'])
    expect(sent('/crm/v3/objects/contacts')[0]?.headers.authorization).toBe(`Bearer ${DEFAULT_HUBSPOT_TOKEN}`)
  })

  it('asks HubSpot only for the properties of the fields listed, and raw.<name> by its name', async () => {
    const res = await h.api<Rec[]>('GET', base(), {
      query: { fields: 'id,emails,raw.lifecyclestage', limit: 3 },
    })
    expect(res.status).toBe(200)
    const q = sent('/crm/v3/objects/contacts')[0]?.query
    expect(q?.properties).toBe('email,hs_additional_emails,lifecyclestage')
    expect(q?.associations).toBeUndefined()
    const first = emu.state.liveContacts()[0]!
    expect(res.body[0]).toEqual({
      id: first.id,
      emails: [{ email: first.properties.email }],
      raw: { lifecyclestage: first.properties.lifecyclestage },
    })
    emu.clearRequests()
    const all = await h.api<Rec[]>('GET', base(), { query: { limit: 3 } })
    expect(sent('/crm/v3/objects/contacts')[0]?.query.associations).toBe('companies,deals')
    const record = all.body.find((c) => c.id === first.id)!
    expect(record).toMatchObject({
      first_name: first.properties.firstname,
      last_name: first.properties.lastname,
      name: `${first.properties.firstname} ${first.properties.lastname}`,
      company: first.properties.company,
      title: first.properties.jobtitle,
      user_id: first.properties.hubspot_owner_id,
      company_ids: [...first.companies],
    })
    expect(String(record.created_at)).toMatch(/Z$/)
    expect(record.raw).toBeUndefined()
  })

  it('filters by owner, company and update time through search, with association ids read in one batch', async () => {
    const live = emu.state.liveContacts()
    const company = live
      .find((c) => c.companies.size > 0)!
      .companies.values()
      .next().value as string
    const since = live.map((c) => c.updatedAt).sort((a, b) => a - b)[100]!
    const res = await h.api<Rec[]>('GET', base(), {
      query: { company_id: company, updated_gte: new Date(since).toISOString(), limit: 100 },
    })
    expect(res.status).toBe(200)
    const expected = live.filter((c) => c.companies.has(company) && c.updatedAt >= since).map((c) => c.id)
    expect(res.body.map((c) => c.id)).toEqual(expected)
    expect(res.body.every((c) => (c.company_ids as string[]).includes(company))).toBe(true)
    expect(searches()[0]?.body).toMatchObject({
      filterGroups: [
        {
          filters: [
            { propertyName: 'lastmodifieddate', operator: 'GTE', value: String(since) },
            { propertyName: 'associations.company', operator: 'EQ', value: company },
          ],
        },
      ],
      sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
      limit: 100,
    })
    expect(sent('/crm/v4/associations/contacts/companies/batch/read')).toHaveLength(1)
    emu.clearRequests()
    const owner = await h.api<Rec[]>('GET', base(), { query: { user_id: '9002', fields: 'id,user_id' } })
    expect(owner.body.map((c) => c.id)).toEqual(
      live.filter((c) => c.properties.hubspot_owner_id === '9002').map((c) => c.id),
    )
    // Only the listed fields: no association reads.
    expect(sent('/crm/v4/associations/contacts/companies/batch/read')).toHaveLength(0)
  })

  it('reads every associated id of a contact, past the v3 read cap of 100 and across v4 batch pages', async () => {
    const c = emu.state.liveContacts()[4]!
    const saved = new Set(c.deals)
    c.deals.clear()
    for (let i = 0; i < 130; i++) c.deals.add(String(90_000 + i))
    emu.state.associationPageSize = 50
    try {
      const want = [...c.deals]
      const one = await h.api<Rec>('GET', `${base()}/${c.id}`, { query: { fields: 'id,deal_ids' } })
      expect(one.status, one.text).toBe(200)
      expect(one.body.deal_ids).toEqual(want)
      const listed = await h.api<Rec[]>('GET', base(), { query: { fields: 'id,deal_ids', limit: 10 } })
      expect(listed.body.find((r) => r.id === c.id)?.deal_ids).toEqual(want)
      // The rest is read only for the contact whose v3 list was paged, in pages followed by their cursor.
      const batches = sent('/crm/v4/associations/contacts/deals/batch/read')
      expect(batches.map((r) => (r.body as { inputs: Rec[] }).inputs.map((i) => i.id))).toEqual([
        [c.id],
        [c.id],
        [c.id],
        [c.id],
        [c.id],
        [c.id],
      ])
      emu.clearRequests()
      const searched = await h.api<Rec[]>('GET', base(), {
        query: { user_id: c.properties.hubspot_owner_id!, fields: 'id,deal_ids', limit: 100 },
      })
      expect(searched.body.find((r) => r.id === c.id)?.deal_ids).toEqual(want)
    } finally {
      c.deals.clear()
      for (const id of saved) c.deals.add(id)
      emu.state.associationPageSize = 500
    }
  })

  it('sorts and searches text through search, paging by its cursor', async () => {
    const live = emu.state.liveContacts()
    const byUpdate = [...live].sort((a, b) => b.updatedAt - a.updatedAt || Number(a.id) - Number(b.id))
    const first = await h.api<Rec[]>('GET', base(), {
      query: { sort: 'updated_at', order: 'desc', limit: 5, fields: 'id' },
    })
    const second = await h.api<Rec[]>('GET', base(), {
      query: { sort: 'updated_at', order: 'desc', limit: 5, offset: 5, fields: 'id' },
    })
    expect([...first.body, ...second.body].map((c) => c.id)).toEqual(byUpdate.slice(0, 10).map((c) => c.id))
    expect(searches().map((r) => (r.body as Rec).after)).toEqual([undefined, '5'])
    const text = await h.api<Rec[]>('GET', base(), { query: { query: 'lovelace', fields: 'id,last_name' } })
    expect(text.status).toBe(200)
    expect(text.body.length).toBeGreaterThan(0)
    expect(text.body.every((c) => c.last_name === 'Lovelace')).toBe(true)
  })

  it("refuses a text query longer than HubSpot's search takes with a 400 naming query, before asking HubSpot", async () => {
    const ok = await h.api<Rec[]>('GET', base(), { query: { query: 'l'.repeat(3000), fields: 'id' } })
    expect(ok.status).toBe(200)
    emu.clearRequests()
    const res = await h.api<Rec>('GET', base(), { query: { query: 'l'.repeat(3001), fields: 'id' } })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/^query: /)
    expect(res.body.message).toContain('3000')
    expect(res.body).not.toHaveProperty('provider_status')
    expect(searches()).toHaveLength(0)
  })

  it("refuses a sorted page past search's 10,000-result cap naming it, before asking HubSpot", async () => {
    const res = await h.api<Rec>('GET', base(), {
      query: { user_id: '9001', sort: 'created_at', offset: 10_000, limit: 10 },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toContain('10000')
    expect(searches()).toHaveLength(0)
  })

  it('creates, reads, updates and removes a contact, sending HubSpot string properties', async () => {
    const created = await h.api<Rec>('POST', base(), {
      body: {
        first_name: 'Grace',
        last_name: 'Hopper',
        emails: [{ email: 'grace.hopper@example.com', type: 'WORK' }],
        telephones: [{ telephone: '+1 555 0100', type: 'MOBILE' }],
        company_ids: [emu.state.companyIds[0]],
        raw: { properties: { lifecyclestage: 'lead' } },
      },
    })
    expect(created.status, created.text).toBe(200)
    const id = created.body.id as string
    expect(id).toMatch(/^\d+$/)
    // HubSpot's create answer has no associations; the made ones are answered as a read answers them.
    expect(created.body.company_ids).toEqual([emu.state.companyIds[0]])
    expect(sent('/crm/v3/objects/contacts', 'POST')[0]?.body).toEqual({
      properties: {
        lifecyclestage: 'lead',
        firstname: 'Grace',
        lastname: 'Hopper',
        email: 'grace.hopper@example.com',
        mobilephone: '+1 555 0100',
      },
      associations: [
        {
          to: { id: emu.state.companyIds[0] },
          types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 }],
        },
      ],
    })
    const got = await h.api<Rec>('GET', `${base()}/${id}`)
    expect(got.body).toMatchObject({ id, name: 'Grace Hopper', company_ids: [emu.state.companyIds[0]] })
    // HubSpot's search index lags writes by a few seconds (the emulator's default): the write's answer, the read
    // by id and the plain list show the contact at once, as none of them goes through search, while a search
    // does not list it yet.
    const listed = await h.api<Rec[]>('GET', base(), { query: { limit: 1000, fields: 'id' } })
    expect(listed.body.map((c) => c.id)).toContain(id)
    expect(searches()).toEqual([])
    const searched = await h.api<Rec[]>('GET', base(), { query: { query: 'Grace', fields: 'id,first_name' } })
    expect(searched.status).toBe(200)
    expect(searched.body.map((c) => c.id)).not.toContain(id)
    const patched = await h.api<Rec>('PATCH', `${base()}/${id}`, { body: { title: 'Rear Admiral' } })
    expect(patched.body).toMatchObject({ id, title: 'Rear Admiral' })
    expect(sent(`/crm/v3/objects/contacts/${id}`, 'PATCH')[0]?.body).toEqual({
      properties: { jobtitle: 'Rear Admiral' },
    })
    const put = await h.api<Rec>('PUT', `${base()}/${id}`, { body: { last_name: 'Murray Hopper' } })
    expect(put.body).toMatchObject({ id, last_name: 'Murray Hopper' })
    expect((await h.api('DELETE', `${base()}/${id}`)).status).toBe(200)
    expect((await h.api('GET', `${base()}/${id}`)).status).toBe(404)
  })

  it('answers 404 to a remove of an id that is no number, which HubSpot would answer 204 for, without a call', async () => {
    const before = emu.requests().length
    const res = await h.api<Rec>('DELETE', `${base()}/not-a-contact`)
    expect(res.status).toBe(404)
    expect(res.body.message).toBe('HubSpot has no contact "not-a-contact": its contact ids are numbers')
    expect(emu.requests().slice(before)).toEqual([])
    // A read of it is HubSpot's own 404.
    expect((await h.api('GET', `${base()}/not-a-contact`)).status).toBe(404)
  })

  it('answers bad input with a 4xx naming it: unwritable fields, invalid values, a taken email', async () => {
    const department = await h.api<Rec>('POST', base(), { body: { department: 'R&D' } })
    expect(department.status).toBe(400)
    expect(department.body.message).toContain('department')
    const invalid = await h.api<Rec>('POST', base(), { body: { emails: [{ email: 'not-an-email' }] } })
    expect(invalid.status).toBe(400)
    expect(invalid.body.message).toContain('INVALID_EMAIL')
    const taken = emu.state.liveContacts()[3]!
    const dup = await h.api<Rec>('POST', base(), { body: { emails: [{ email: taken.properties.email }] } })
    expect(dup.status).toBe(409)
    expect(dup.body.message).toContain(`Existing ID: ${taken.id}`)
    const assoc = await h.api<Rec>('PATCH', `${base()}/${taken.id}`, { body: { company_ids: ['7000'] } })
    expect(assoc.status).toBe(400)
    expect(assoc.body.message).toContain('company_ids')
    expect(sent(`/crm/v3/objects/contacts/${taken.id}`, 'PATCH')).toHaveLength(0)
    expect((await h.api('GET', `${base()}/999999999`)).status).toBe(404)
    // A name that the halves beside it do not make was dropped unseen: refused, as Pipedrive's connector does.
    for (const body of [
      { name: 'Ada Lovelace', first_name: 'Grace' },
      { name: 'Ada Lovelace', first_name: 'Ada', last_name: 'Byron' },
    ]) {
      const named = await h.api<Rec>('PATCH', `${base()}/${taken.id}`, { body })
      expect(named.status, JSON.stringify(body)).toBe(400)
      expect(named.body.message).toMatch(/^name: HubSpot makes a contact's name of first_name and last_name/)
    }
    expect(sent(`/crm/v3/objects/contacts/${taken.id}`, 'PATCH')).toHaveLength(0)
    const agreeing = await h.api<Rec>('PATCH', `${base()}/${taken.id}`, {
      body: { name: 'Ada Lovelace', first_name: 'Ada', last_name: 'Lovelace' },
    })
    expect(agreeing.status).toBe(200)
    expect(agreeing.body).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', name: 'Ada Lovelace' })
  })

  it('answers a create HubSpot did not answer in time with a 504 saying it may still have been made', async () => {
    const email = 'late.answer@example.com'
    emu.fault({ delayMs: 5_000, method: 'POST', pathPattern: '^/crm/v3/objects/contacts$' })
    const res = await h.api<Rec>('POST', base(), { body: { first_name: 'Late', emails: [{ email }] } })
    expect(res.status).toBe(504)
    expect(res.body.message).toMatch(
      /did not answer create crm_contact within \d+ ms; the provider may still have made the change: read it back before sending it again$/,
    )
    // And HubSpot did make it.
    await vi.waitFor(
      () => expect(emu.state.liveContacts().some((c) => c.properties.email === email)).toBe(true),
      {
        timeout: 5_000,
      },
    )
    // A read that timed out says nothing of the kind.
    emu.fault({ delayMs: 5_000, method: 'GET', pathPattern: '^/crm/v3/objects/contacts/\\d+$' })
    const read = await h.api<Rec>('GET', `${base()}/${emu.state.liveContacts()[0]!.id}`)
    expect(read.status).toBe(504)
    expect(read.body.message).not.toContain('may still have made')
  })

  it('waits out a 429 by HubSpot’s window header, and passes a longer one on with retry-after', async () => {
    emu.fault({ status: 429, headers: { 'x-hubspot-ratelimit-interval-milliseconds': '50' } })
    const ok = await h.api<Rec[]>('GET', base(), { query: { limit: 2 } })
    expect(ok.status).toBe(200)
    expect(sent('/crm/v3/objects/contacts')).toHaveLength(2)
    emu.fault({ status: 429, times: 3, headers: { 'x-hubspot-ratelimit-interval-milliseconds': '10000' } })
    const limited = await h.api<Rec>('GET', base(), { query: { limit: 2 } })
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('10')
  })

  it('says the daily limit is spent and when it resets, without retrying, when HubSpot answers 429 DAILY', async () => {
    const limit = emu.state.dailyLimit
    try {
      // Today's requests so far, then the limit set just under them: the next request is past it.
      emu.state.dailyLimit = [...emu.state.daily.values()].reduce((a, b) => Math.max(a, b), 0)
      emu.clearRequests()
      const spent = await h.api<Rec>('GET', base(), { query: { limit: 2 } })
      expect(spent.status).toBe(429)
      // One call: the 10 s window header of HubSpot's answer would only lead to pointless retries.
      expect(sent('/crm/v3/objects/contacts')).toHaveLength(1)
      expect(spent.body.message).toMatch(/daily API limit for this account is spent/)
      expect(spent.body.message).toMatch(/midnight in the account's time zone \(US\/Eastern\)/)
      // retry-after is the time until that midnight, which the message names.
      const seconds = Number(spent.headers['retry-after'])
      const resetAt = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)/.exec(spent.body.message as string)?.[1]
      expect(seconds).toBeGreaterThan(0)
      expect(seconds).toBeLessThanOrEqual(25 * 3600)
      const wall = new Intl.DateTimeFormat('en-US', {
        timeZone: 'US/Eastern',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(resetAt as string))
      expect(wall).toBe('00:00')
    } finally {
      emu.state.dailyLimit = limit
    }
  })

  it('answers 403 asking to re-authorize when HubSpot refuses the token', async () => {
    const revoked = 'pat-na1-revoked-0000'
    emu.state.privateAppTokens.add(revoked)
    const id = await createConnection(h, {
      integration_type: 'hubspot',
      auth: { token: revoked, api_url: emu.url },
    })
    emu.state.privateAppTokens.delete(revoked)
    const res = await h.api<Rec>('GET', `/crm/${id}/contact`)
    expect(res.status).toBe(403)
    expect(res.body.message).toMatch(/re-authorize/)
    expect(JSON.stringify(res.body)).not.toContain(revoked)
  })

  it('refreshes an expired OAuth token with the workspace app and retries the read', async () => {
    emu.registerClient({
      clientId: 'hs-app',
      clientSecret: 'hs-secret',
      redirectUris: ['http://localhost/cb'],
    })
    const app = await h.api('PUT', '/unified/workspace/oauth_app/hubspot', {
      body: { client_id: 'hs-app', client_secret: 'hs-secret', token_url: `${emu.url}/oauth/v1/token` },
    })
    expect(app.status, app.text).toBe(200)
    const tokens = emu.state.issueTokens('hs-app', ['oauth', 'crm.objects.contacts.read'], 1800)
    const id = await createConnection(h, {
      integration_type: 'hubspot',
      auth: { access_token: tokens.access_token, refresh_token: tokens.refresh_token, api_url: emu.url },
    })
    emu.state.expireAccessToken(tokens.access_token)
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', `/crm/${id}/contact`, { query: { limit: 2 } })
    expect(res.status, res.text).toBe(200)
    expect(sent('/oauth/v1/token', 'POST')[0]?.body).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'hs-app',
      client_secret: 'hs-secret',
    })
    const reads = sent('/crm/v3/objects/contacts')
    expect(reads).toHaveLength(2)
    expect(reads[1]?.headers.authorization).not.toBe(`Bearer ${tokens.access_token}`)
    // The grant dies (the app was uninstalled): HubSpot answers BAD_REFRESH_TOKEN, a re-authorization.
    emu.state.refreshTokens.delete(tokens.refresh_token)
    for (const token of emu.state.accessTokens.keys()) emu.state.expireAccessToken(token)
    const dead = await h.api<Rec>('GET', `/crm/${id}/contact`)
    expect(dead.status).toBe(403)
    expect(dead.body.message).toMatch(/re-authorize/i)
  })

  it('delivers a contact updated just before a check once search lists it, though search lags', async () => {
    const lag = emu.state.searchLagMs
    const receiver = await startWebhookReceiver(h.secret)
    try {
      const { id, trigger } = await watchedWebhook(h, conn, receiver.url, 'crm_contact')
      // HubSpot's clock and ours share a millisecond resolution: change strictly after the baseline.
      await new Promise((r) => setTimeout(r, 5))
      const delivered = (contactId: string) =>
        receiver.accepted(id).flatMap((d) => d.data.filter((r) => r.id === contactId))
      // Search does not list the change yet, however late the first check runs (the 4/s search pace can
      // delay it by most of a second; a lag of 300 ms made this test fail when it did).
      emu.state.searchLagMs = 60_000
      const contact = emu.state.liveContacts()[7]!
      const patched = await h.api('PATCH', `${base()}/${contact.id}`, { body: { title: 'Webhook tester' } })
      expect(patched.status).toBe(200)
      emu.clearRequests()
      // Checked before search lists the change: nothing for this contact yet.
      await trigger()
      expect(delivered(contact.id)).toEqual([])
      const first = (searches()[0]!.body as { filterGroups: { filters: Rec[] }[] }).filterGroups[0]!.filters
      expect(first[0]).toMatchObject({ propertyName: 'lastmodifieddate', operator: 'GTE' })
      // Once search lists it, the next check reads back far enough to find it, and delivers it once.
      emu.state.searchLagMs = 0
      await trigger()
      await receiver.waitFor(() => delivered(contact.id).length > 0, 15_000, 'the updated contact')
      await trigger()
      expect(delivered(contact.id)).toMatchObject([{ id: contact.id, title: 'Webhook tester' }])
      await h.api('DELETE', `/unified/webhook/${id}`)
    } finally {
      emu.state.searchLagMs = lag
      await receiver.close()
    }
  })

  it('adds raw properties and associations to those the fields need, never replacing them', async () => {
    // `raw` is "added to the provider request" (spec 4.1): HubSpot answers only the properties and association
    // types named (contacts spec, `properties`, `associations`), so a raw list replacing Unigate's would leave
    // the unified fields empty without a word.
    const first = emu.state.liveContacts()[0]!
    const res = await h.api<Rec[]>('GET', base(), {
      query: {
        raw: 'properties=lifecyclestage&associations=deals',
        fields: 'id,first_name,company_ids,raw',
        limit: 1,
      },
    })
    expect(res.status).toBe(200)
    const q = sent('/crm/v3/objects/contacts')[0]?.query
    expect(String(q?.properties).split(',')).toEqual(expect.arrayContaining(['firstname', 'lifecyclestage']))
    expect(String(q?.associations).split(',').sort()).toEqual(['companies', 'deals'])
    expect(res.body[0]).toMatchObject({
      id: first.id,
      first_name: first.properties.firstname,
      company_ids: [...first.companies],
    })
    expect((res.body[0]!.raw as { properties: Rec }).properties.lifecyclestage).toBe(
      first.properties.lifecyclestage,
    )
    // The same on a read by id, and on a search, whose properties are a body field.
    const one = await h.api<Rec>('GET', `${base()}/${first.id}`, {
      query: { raw: 'properties=lifecyclestage', fields: 'id,first_name,raw' },
    })
    expect(one.body).toMatchObject({ id: first.id, first_name: first.properties.firstname })
    expect((one.body.raw as { properties: Rec }).properties.lifecyclestage).toBe(
      first.properties.lifecyclestage,
    )
    const searched = await h.api<Rec[]>('GET', base(), {
      query: { raw: 'properties=lifecyclestage', fields: 'id,first_name,raw', sort: 'created_at', limit: 1 },
    })
    expect(searched.status).toBe(200)
    expect(searches()[0]?.body).toMatchObject({
      properties: expect.arrayContaining(['firstname', 'lifecyclestage']),
    })
    expect(searches()[0]?.query.properties).toBeUndefined()
    const found = searched.body[0]!
    const contact = emu.state.contacts.get(String(found.id))!
    expect((found.raw as { properties: Rec }).properties.lifecyclestage).toBe(
      contact.properties.lifecyclestage,
    )
  })
})
