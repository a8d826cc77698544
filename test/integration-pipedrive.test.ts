import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PIPEDRIVE_TOKEN,
  type PipedriveEmulator,
  startPipedriveEmulator,
} from '../emulators/pipedrive/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'
import { watchedWebhook } from './support/watched-webhook.js'
import { startWebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>

describe('Pipedrive through Unigate', () => {
  let h: Harness
  let emu: PipedriveEmulator
  let conn: string
  const base = () => `/crm/${conn}/contact`
  const sent = (method: string, path: string) =>
    emu.requests().filter((r) => r.method === method && r.path === path)

  useEmulatorSuite({
    start: () => startPipedriveEmulator({ seed: 6, persons: 260, burst: 1000 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'pipedrive',
        auth: { api_token: DEFAULT_PIPEDRIVE_TOKEN, api_url: emu.url },
      })
    },
  })

  it('claims exactly the operations that work', async () => {
    const support = await supportMatrixOf(h, 'pipedrive')
    await expectSupportMatrixAnswers(h, `/crm/${conn}`, support, {
      body: () => ({ name: 'Matrix Person' }),
      id: async (step) =>
        step.method === 'get' || step.created === '' ? String(emu.state.livePersons()[0]!.id) : step.created,
    })
  })

  it('pages persons by cursor, remembering it, with the token in x-api-token only', async () => {
    const ids = emu.state.livePersons().map((p) => String(p.id))
    const page = async (offset: number, limit: number) =>
      (await h.api<Rec[]>('GET', base(), { query: { offset, limit, fields: 'id' } })).body.map((c) => c.id)
    expect(await page(0, 40)).toEqual(ids.slice(0, 40))
    const first = sent('GET', '/api/v2/persons')
    expect(first.map((r) => r.query)).toEqual([{ limit: '40' }])
    expect(first[0]?.headers['x-api-token']).toBe(DEFAULT_PIPEDRIVE_TOKEN)
    expect(JSON.stringify(first[0]?.query)).not.toContain(DEFAULT_PIPEDRIVE_TOKEN)
    emu.clearRequests()
    expect(await page(40, 40)).toEqual(ids.slice(40, 80))
    expect(sent('GET', '/api/v2/persons')).toHaveLength(1)
    emu.clearRequests()
    expect(await page(200, 100)).toEqual(ids.slice(200, 260))
    // From the nearest cursor (100, where the matrix test's default page of 100 ended) to 200, then the page.
    expect(sent('GET', '/api/v2/persons').map((r) => r.query.limit)).toEqual(['100', '100'])
  })

  it('maps persons, and passes raw and custom fields through', async () => {
    const p = emu.state.livePersons().find((x) => x.orgId !== null && Object.keys(x.customFields).length > 0)!
    const res = await h.api<Rec>('GET', `${base()}/${p.id}`, {
      query: { fields: 'id,name,emails,company_ids,user_id,metadata,raw' },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      id: String(p.id),
      name: p.name,
      emails: [{ email: p.emails[0]!.value, type: 'WORK' }],
      company_ids: [String(p.orgId)],
      user_id: String(p.ownerId),
      raw: { id: p.id, custom_fields: p.customFields },
    })
    expect((res.body.metadata as Rec[])[0]).toMatchObject({ value: Object.values(p.customFields)[0] })
    // Contact sync's job title and postal address are the contact's title and address.
    const synced = emu.state.livePersons().find((x) => x.jobTitle && x.postalAddress)!
    const read = await h.api<Rec>('GET', `${base()}/${synced.id}`, { query: { fields: 'title,address' } })
    expect(read.body).toEqual({
      title: synced.jobTitle,
      address: {
        city: synced.postalAddress!.locality,
        region: synced.postalAddress!.admin_area_level_1,
        postal_code: synced.postalAddress!.postal_code,
        country: synced.postalAddress!.country,
      },
    })
  })

  it('leaves out a person changed before a sub-second updated_gte, as every integration does', async () => {
    // Pipedrive keeps whole seconds and takes `updated_since` to the second: a value cut down to its second
    // let in persons changed in the part of that second before it.
    const live = emu.state.livePersons()
    const at = live.map((p) => p.updateTime).sort((a, b) => a - b)[20]!
    for (const since of [at + 1, at + 999, at + 1000, at]) {
      emu.clearRequests()
      const res = await h.api<Rec[]>('GET', base(), {
        query: { updated_gte: new Date(since).toISOString(), fields: 'id,updated_at', limit: 1000 },
      })
      expect(res.status).toBe(200)
      const want = live.filter((p) => p.updateTime >= since).map((p) => String(p.id))
      expect(res.body.map((c) => c.id).sort()).toEqual(want.sort())
      for (const c of res.body) expect(Date.parse(String(c.updated_at))).toBeGreaterThanOrEqual(since)
    }
    expect(sent('GET', '/api/v2/persons')[0]?.query.updated_since).toBe(
      new Date(at).toISOString().replace('.000Z', 'Z'),
    )
  })

  it('filters by owner, organization, deal and update time at Pipedrive, and sorts there', async () => {
    const live = emu.state.livePersons()
    const since = live.map((p) => p.updateTime).sort((a, b) => a - b)[130]!
    const res = await h.api<Rec[]>('GET', base(), {
      query: { user_id: '1002', company_id: '502', updated_gte: new Date(since).toISOString(), fields: 'id' },
    })
    expect(res.status).toBe(200)
    expect(res.body.map((c) => c.id)).toEqual(
      live
        .filter((p) => p.ownerId === 1002 && p.orgId === 502 && p.updateTime >= since)
        .map((p) => String(p.id)),
    )
    expect(sent('GET', '/api/v2/persons')[0]?.query).toMatchObject({
      owner_id: '1002',
      org_id: '502',
      updated_since: new Date(since).toISOString().replace('.000Z', 'Z'),
    })
    const deal = [...emu.state.dealPersons.entries()].find(([, s]) => s.size > 0)!
    const byDeal = await h.api<Rec[]>('GET', base(), { query: { deal_id: String(deal[0]), fields: 'id' } })
    expect(byDeal.body.map((c) => c.id)).toEqual([...deal[1]].sort((a, b) => a - b).map(String))
    emu.clearRequests()
    const sorted = await h.api<Rec[]>('GET', base(), {
      query: { sort: 'updated_at', order: 'desc', limit: 5, fields: 'id' },
    })
    expect(sorted.body.map((c) => c.id)).toEqual(
      [...live]
        .sort((a, b) => b.updateTime - a.updateTime || b.id - a.id)
        .slice(0, 5)
        .map((p) => String(p.id)),
    )
    expect(sent('GET', '/api/v2/persons')[0]?.query).toMatchObject({
      sort_by: 'update_time',
      sort_direction: 'desc',
    })
    const bad = await h.api<Rec>('GET', base(), { query: { user_id: 'ann' } })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('user_id')
    expect((await h.api('GET', base(), { query: { query: 'ada', user_id: '1001' } })).status).toBe(501)
  })

  it('searches with query, then reads the found persons whole, in search order', async () => {
    const live = emu.state.livePersons()
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', base(), {
      query: { query: 'lovelace', company_id: '501', limit: 4 },
    })
    expect(res.status, res.text).toBe(200)
    const expected = live.filter((p) => p.name.toLowerCase().includes('lovelace') && p.orgId === 501)
    expect(res.body.map((c) => c.id)).toEqual(expected.slice(0, 4).map((p) => String(p.id)))
    expect(res.body[0]).toMatchObject({ emails: [{ email: expected[0]!.emails[0]!.value, type: 'WORK' }] })
    expect(sent('GET', '/api/v2/persons/search')[0]?.query).toMatchObject({
      term: 'lovelace',
      organization_id: '501',
      limit: '4',
    })
    expect(sent('GET', '/api/v2/persons')[0]?.query.ids).toBe(
      expected
        .slice(0, 4)
        .map((p) => p.id)
        .join(','),
    )
    const next = await h.api<Rec[]>('GET', base(), {
      query: { query: 'lovelace', company_id: '501', limit: 4, offset: 4 },
    })
    expect(next.body.map((c) => c.id)).toEqual(expected.slice(4, 8).map((p) => String(p.id)))
    const short = await h.api<Rec>('GET', base(), { query: { query: 'a' } })
    expect(short.status).toBe(400)
    expect(short.body.message).toContain('query')
  })

  it('refuses a search page past the 2000 persons Pipedrive finds within an organization', async () => {
    const added: number[] = []
    for (let i = 0; i < 2001; i++) {
      const id = emu.state.newPersonId()
      added.push(id)
      emu.state.persons.set(id, {
        id,
        name: `Capped Person ${i}`,
        ownerId: 1001,
        orgId: 504,
        emails: [],
        phones: [],
        customFields: {},
        addTime: 0,
        updateTime: 0,
      })
    }
    try {
      const query = { query: 'capped', company_id: '504', limit: 10, fields: 'id' }
      emu.clearRequests()
      const last = await h.api<Rec[]>('GET', base(), { query: { ...query, offset: 1990 } })
      expect(last.status, last.text).toBe(200)
      expect(last.body).toHaveLength(10)
      // Pipedrive allows 10 searches per 2 seconds: the walk to the offset reads 500 at a time (search's
      // largest page), 4 searches and the page's own (none refused and retried), not 20 of 100 that meet the limit.
      expect(sent('GET', '/api/v2/persons/search').map((r) => r.query.limit)).toEqual([
        '500',
        '500',
        '500',
        '490',
        '10',
      ])
      const past = await h.api<Rec>('GET', base(), { query: { ...query, offset: 2000 } })
      expect(past.status).toBe(400)
      expect(past.body.message).toContain('2000')
      // Without the organization, search has no such cap: the same offset answers.
      const unnarrowed = await h.api<Rec[]>('GET', base(), {
        query: { query: 'capped', limit: 1, offset: 2000, fields: 'id' },
      })
      expect(unnarrowed.body).toEqual([{ id: String(added[2000]) }])
    } finally {
      for (const id of added) emu.state.persons.delete(id)
    }
  })

  it('passes raw parameters on, but refuses those that would replace its paging or filters', async () => {
    const live = emu.state.livePersons()
    const direct = await fetch(`${emu.url}/api/v2/persons?limit=5`, {
      headers: { 'x-api-token': DEFAULT_PIPEDRIVE_TOKEN },
    })
    const cursor = ((await direct.json()) as { additional_data: { next_cursor: string } }).additional_data
      .next_cursor
    const paged = await h.api<Rec>('GET', base(), { query: { raw: `cursor=${cursor}`, limit: 10 } })
    expect(paged.status).toBe(400)
    expect(paged.body.message).toContain("'cursor'")
    const filtered = await h.api<Rec>('GET', base(), { query: { raw: 'filter_id=7', user_id: '1001' } })
    expect(filtered.status).toBe(400)
    expect(filtered.body.message).toContain('filter_id')
    const until = live.map((p) => p.updateTime).sort((a, b) => a - b)[20]!
    const narrowed = await h.api<Rec[]>('GET', base(), {
      query: { raw: `updated_until=${new Date(until).toISOString().replace('.000Z', 'Z')}`, fields: 'id' },
    })
    expect(narrowed.status, narrowed.text).toBe(200)
    expect(narrowed.body.map((c) => c.id)).toEqual(
      live.filter((p) => p.updateTime < until).map((p) => String(p.id)),
    )
  })

  it('creates, reads, updates and removes a person; a removed one is 404', async () => {
    const created = await h.api<Rec>('POST', base(), {
      body: {
        first_name: 'Grace',
        last_name: 'Hopper',
        emails: [{ email: 'grace@example.com', type: 'WORK' }],
        telephones: [{ telephone: '+1 555 0100', type: 'MOBILE' }],
        company_ids: ['503'],
        user_id: '1003',
      },
    })
    expect(created.status, created.text).toBe(200)
    const id = created.body.id as string
    expect(sent('POST', '/api/v2/persons')[0]?.body).toEqual({
      name: 'Grace Hopper',
      first_name: 'Grace',
      last_name: 'Hopper',
      emails: [{ value: 'grace@example.com', primary: true, label: 'work' }],
      phones: [{ value: '+1 555 0100', primary: true, label: 'mobile' }],
      owner_id: 1003,
      org_id: 503,
    })
    expect(created.body).toMatchObject({ name: 'Grace Hopper', company_ids: ['503'], user_id: '1003' })
    const patched = await h.api<Rec>('PATCH', `${base()}/${id}`, { body: { name: 'Grace Brewster Hopper' } })
    expect(patched.body).toMatchObject({ id, name: 'Grace Brewster Hopper' })
    expect(sent('PATCH', `/api/v2/persons/${id}`)[0]?.body).toEqual({ name: 'Grace Brewster Hopper' })
    expect((await h.api('DELETE', `${base()}/${id}`)).status).toBe(200)
    const gone = await h.api<Rec>('GET', `${base()}/${id}`)
    expect(gone.status).toBe(404)
    // Pipedrive still answers it, marked deleted: Unigate says it is gone.
    expect(sent('GET', `/api/v2/persons/${id}`)).toHaveLength(1)
  })

  it('writes first and last name as Pipedrive v2 takes them, so a two-word first name stays whole', async () => {
    const created = await h.api<Rec>('POST', base(), { body: { first_name: 'Mary Ann', last_name: 'Smith' } })
    expect(created.status, created.text).toBe(200)
    const id = created.body.id as string
    // The halves as halves, and joined as name for a Pipedrive that reads name only (its v2 OpenAPI).
    expect(sent('POST', '/api/v2/persons')[0]?.body).toEqual({
      name: 'Mary Ann Smith',
      first_name: 'Mary Ann',
      last_name: 'Smith',
    })
    const read = await h.api<Rec>('GET', `${base()}/${id}`, {
      query: { fields: 'name,first_name,last_name' },
    })
    expect(read.body).toEqual({ name: 'Mary Ann Smith', first_name: 'Mary Ann', last_name: 'Smith' })
    const lastOnly = await h.api<Rec>('POST', base(), { body: { last_name: 'Curie' } })
    expect(lastOnly.status, lastOnly.text).toBe(200)
    expect(lastOnly.body).toMatchObject({ name: 'Curie', last_name: 'Curie' })
    expect(lastOnly.body).not.toHaveProperty('first_name')
    emu.clearRequests()
    const renamed = await h.api<Rec>('PATCH', `${base()}/${id}`, {
      body: { first_name: 'Mary Ann', last_name: 'Jones' },
    })
    expect(renamed.body).toMatchObject({ name: 'Mary Ann Jones', first_name: 'Mary Ann', last_name: 'Jones' })
    expect(sent('PATCH', `/api/v2/persons/${id}`)[0]?.body).toEqual({
      name: 'Mary Ann Jones',
      first_name: 'Mary Ann',
      last_name: 'Jones',
    })
    // One half beside a name that shows the other is empty: an update as a create takes it.
    const cher = await h.api<Rec>('PATCH', `${base()}/${id}`, { body: { name: 'Cher', first_name: 'Cher' } })
    expect(cher.status, cher.text).toBe(200)
    expect(cher.body).toMatchObject({ name: 'Cher', first_name: 'Cher' })
    // Halves of blanks are no name; neither is an empty name.
    for (const body of [{ first_name: ' ', last_name: ' ' }, { name: '' }]) {
      const refused = await h.api<{ message: string }>('PATCH', `${base()}/${id}`, { body })
      expect(refused.status, refused.text).toBe(400)
      expect(refused.body.message).toMatch(/^(first_name, last_name|name): /)
    }
  })

  it('answers bad input with a 4xx naming it, before or at Pipedrive', async () => {
    const noName = await h.api<Rec>('POST', base(), { body: { emails: [{ email: 'x@example.com' }] } })
    expect(noName.status).toBe(400)
    expect(noName.body.message).toContain('name')
    const owner = await h.api<Rec>('POST', base(), { body: { name: 'X', user_id: '424242' } })
    expect(owner.status).toBe(400)
    expect(owner.body.message).toContain('User with id 424242 not found')
    const half = await h.api<Rec>('PATCH', `${base()}/${emu.state.livePersons()[0]!.id}`, {
      body: { last_name: 'Only' },
    })
    expect(half.status).toBe(400)
    expect((await h.api('GET', `${base()}/not-a-number`)).status).toBe(404)
    expect((await h.api('GET', `${base()}/99999999`)).status).toBe(404)
  })

  it('waits out a 429 by x-ratelimit-reset, and passes a longer one on with retry-after', async () => {
    emu.fault({ status: 429, headers: { 'x-ratelimit-reset': '0' } })
    expect((await h.api('GET', base(), { query: { limit: 2 } })).status).toBe(200)
    expect(sent('GET', '/api/v2/persons')).toHaveLength(2)
    emu.fault({ status: 429, times: 3, headers: { 'x-ratelimit-reset': '30' } })
    const limited = await h.api('GET', base(), { query: { limit: 2 } })
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('30')
  })

  it('answers a spent daily token budget at once, saying so, and still waits out a burst 429', async () => {
    const budget = emu.state.dailyTokenBudget
    const day = new Date().toISOString().slice(0, 10)
    try {
      // Everything but one list's cost is spent: the first list of the day goes through, the next is refused.
      emu.state.dailyTokenBudget = (emu.state.spentTokens.get(day) ?? 0) + 10
      expect((await h.api('GET', base(), { query: { limit: 2 } })).status).toBe(200)
      emu.clearRequests()
      const spent = await h.api<{ message: string }>('GET', base(), { query: { limit: 2 } })
      expect(spent.status).toBe(429)
      expect(spent.body.message).toMatch(/^The Pipedrive company's daily API token budget is spent/)
      expect(spent.body.message).toMatch(/Pipedrive answered 429: Request over limit/)
      expect(spent.body.message).toMatch(/resets at midnight in the time zone of Pipedrive's servers/)
      // Pipedrive does not name that time zone: no wait can be promised.
      expect(spent.headers['retry-after']).toBeUndefined()
      // One call: the 2-second window's x-ratelimit-reset would only lead to refusals of the same budget.
      expect(sent('GET', '/api/v2/persons')).toHaveLength(1)
    } finally {
      emu.state.dailyTokenBudget = budget
    }
    // A burst refusal (its window spent: none remaining) is still waited out and tried again.
    emu.clearRequests()
    emu.fault({
      status: 429,
      headers: { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '0' },
    })
    const burst = await h.api('GET', base(), { query: { limit: 2 } })
    expect(burst.status).toBe(200)
    expect(sent('GET', '/api/v2/persons')).toHaveLength(2)
  })

  it('answers 403 asking to re-authorize when Pipedrive refuses the token', async () => {
    const old = 'ffffffffffffffffffffffffffffffffffffffff'
    emu.state.apiTokens.add(old)
    const id = await createConnection(h, {
      integration_type: 'pipedrive',
      auth: { api_token: old, api_url: emu.url },
    })
    emu.state.apiTokens.delete(old)
    const res = await h.api<Rec>('GET', `/crm/${id}/contact`)
    expect(res.status).toBe(403)
    expect(res.body.message).toMatch(/re-authorize/)
    expect(JSON.stringify(res.body)).not.toContain(old)
  })

  it('fails a virtual webhook check that meets a spent daily budget with one call, not retries', async () => {
    const receiver = await startWebhookReceiver(h.secret)
    const budget = emu.state.dailyTokenBudget
    try {
      const { id } = await watchedWebhook(h, conn, receiver.url, 'crm_contact')
      const runs = async () =>
        ((await h.api<Rec>('GET', `/unified/webhook/${id}`)).body.runs as unknown[] | undefined)?.length ?? 0
      const before = await runs()
      emu.state.dailyTokenBudget = 0
      emu.clearRequests()
      expect((await h.api('PUT', `/unified/webhook/${id}/trigger`)).status).toBe(200)
      for (let i = 0; i < 400 && (await runs()) === before; i++) await new Promise((r) => setTimeout(r, 25))
      expect(await runs()).toBe(before + 1)
      expect(sent('GET', '/api/v2/persons')).toHaveLength(1)
      emu.state.dailyTokenBudget = budget
      await h.api('DELETE', `/unified/webhook/${id}`)
    } finally {
      emu.state.dailyTokenBudget = budget
      await receiver.close()
    }
  })

  it('delivers a change made in the second a check started once, though Pipedrive times are whole seconds', async () => {
    const receiver = await startWebhookReceiver(h.secret)
    try {
      const { id, trigger } = await watchedWebhook(h, conn, receiver.url, 'crm_contact')
      // Start of a fresh second after the baseline: the change and the next check share that second.
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5))
      const person = emu.state.livePersons()[11]!
      person.name = 'Changed In This Second'
      person.updateTime = Math.floor(Date.now() / 1000) * 1000
      await trigger()
      await trigger()
      // Deliveries go out oldest first: once a later change arrives, every earlier one has.
      const marker = emu.state.livePersons()[12]!
      marker.name = 'Marker'
      marker.updateTime = Math.floor(Date.now() / 1000) * 1000 + 1000
      await new Promise((r) => setTimeout(r, marker.updateTime - Date.now() + 5))
      await trigger()
      const of = (personId: number) =>
        receiver.accepted(id).flatMap((d) => d.data.filter((r) => r.id === String(personId)))
      await receiver.waitFor(() => of(marker.id).length > 0, 15_000, 'the marker change')
      expect(of(person.id)).toMatchObject([{ id: String(person.id), name: 'Changed In This Second' }])
      await h.api('DELETE', `/unified/webhook/${id}`)
    } finally {
      await receiver.close()
    }
  })
})
