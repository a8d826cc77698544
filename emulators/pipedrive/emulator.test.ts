import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PIPEDRIVE_TOKEN, type PipedriveEmulator, startPipedriveEmulator } from './index.js'

describe('Pipedrive emulator', () => {
  let emu: PipedriveEmulator
  const headers = { 'x-api-token': DEFAULT_PIPEDRIVE_TOKEN }
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field in the assertions
  type Answer = Record<string, any>
  const call = async (method: string, path: string, body?: unknown, h: Record<string, string> = headers) => {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: body === undefined ? h : { ...h, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: res.status, headers: res.headers, body: (await res.json()) as Answer }
  }

  beforeAll(async () => {
    emu = await startPipedriveEmulator({ seed: 4, persons: 30, burst: 1000 })
  })
  afterAll(() => emu.close())

  it('takes the token only in x-api-token, answering 401 unauthorized access otherwise', async () => {
    const query = await call('GET', `/api/v2/persons?api_token=${DEFAULT_PIPEDRIVE_TOKEN}`, undefined, {})
    expect(query.status).toBe(401)
    expect(query.body).toMatchObject({ success: false, error: 'unauthorized access', errorCode: 401 })
  })

  it("refuses an OAuth token outside its app's scopes with 403 Scope and URL mismatch", async () => {
    emu.registerClient({ clientId: 'reader', clientSecret: 's', redirectUris: [], scopes: ['contacts:read'] })
    emu.registerClient({ clientId: 'hooks', clientSecret: 's', redirectUris: [], scopes: ['webhooks:full'] })
    const bearer = (clientId: string) => ({
      authorization: `Bearer ${emu.state.issueTokens(clientId, 3600).access_token}`,
    })
    const reader = bearer('reader')
    expect((await call('GET', '/api/v2/persons?limit=1', undefined, reader)).status).toBe(200)
    expect((await call('GET', '/api/v1/users/me', undefined, reader)).status).toBe(200) // base: every app
    const write = await call('POST', '/api/v2/persons', { name: 'No Scope' }, reader)
    expect(write.status).toBe(403)
    expect(write.body).toEqual({ success: false, error: 'Scope and URL mismatch', errorCode: 403 })
    expect((await call('GET', '/api/v1/webhooks', undefined, reader)).status).toBe(403)
    const hooks = bearer('hooks')
    expect((await call('GET', '/api/v1/webhooks', undefined, hooks)).status).toBe(200)
    expect((await call('GET', '/api/v2/persons', undefined, hooks)).status).toBe(403)
  })

  it('takes a form body only at the token endpoint, the client as Basic or in the body, refusing with 400s', async () => {
    emu.registerClient({ clientId: 'formed', clientSecret: 'sec', redirectUris: [] })
    const refresh = emu.state.issueTokens('formed', 3600).refresh_token
    const token = (body: string, headers: Record<string, string>) =>
      fetch(`${emu.url}/oauth/token`, { method: 'POST', headers, body })
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const asJson = await token(JSON.stringify({ grant_type: 'refresh_token', refresh_token: refresh }), {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from('formed:sec').toString('base64')}`,
    })
    expect(asJson.status).toBe(400)
    const inBody = await token(
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: 'formed',
        client_secret: 'sec',
      }).toString(),
      form,
    )
    expect(inBody.status).toBe(200)
    const wrong = await token(
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh }).toString(),
      { ...form, authorization: `Basic ${Buffer.from('formed:nope').toString('base64')}` },
    )
    expect(wrong.status).toBe(400)
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' })
  })

  it('refuses an authorization code older than 5 minutes', async () => {
    const redirect = 'http://127.0.0.1:9/cb'
    emu.registerClient({ clientId: 'late', clientSecret: 'sec', redirectUris: [redirect] })
    const consent = await fetch(`${emu.url}/oauth/authorize?client_id=late&redirect_uri=${redirect}`, {
      redirect: 'manual',
    })
    const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? ''
    const issued = emu.state.codes.get(code)
    if (issued) emu.state.codes.set(code, { ...issued, issuedAt: issued.issuedAt - 5 * 60_000 - 1 })
    const exchange = await fetch(`${emu.url}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('late:sec').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirect,
      }).toString(),
    })
    expect(exchange.status).toBe(400)
    expect(await exchange.json()).toMatchObject({ error: 'invalid_grant' })
  })

  it('pages persons by cursor, sorted and filtered, with v2 validation', async () => {
    const first = await call('GET', '/api/v2/persons?limit=10&sort_by=update_time&sort_direction=desc')
    expect(first.body.data).toHaveLength(10)
    expect(first.headers.get('x-ratelimit-limit')).toBe('1000')
    const times = first.body.data.map((p: { update_time: string }) => p.update_time)
    expect([...times].sort().reverse()).toEqual(times)
    expect(times[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    const next = await call(
      'GET',
      `/api/v2/persons?limit=100&sort_by=update_time&sort_direction=desc&cursor=${first.body.additional_data.next_cursor}`,
    )
    expect(next.body.data).toHaveLength(20)
    expect(next.body.additional_data.next_cursor).toBeNull()
    expect((await call('GET', '/api/v2/persons?owner_id=abc')).status).toBe(400)
    expect((await call('GET', '/api/v2/persons?limit=501')).status).toBe(400)
    expect((await call('GET', '/api/v2/persons?updated_since=2024-05-01')).status).toBe(400)
  })

  it('refuses strings for numbers and unknown records, and keeps a deleted person 30 days', async () => {
    expect((await call('POST', '/api/v2/persons', { name: 'X', owner_id: '1001' })).status).toBe(400)
    expect((await call('POST', '/api/v2/persons', { name: 'X', org_id: 999 })).status).toBe(400)
    expect((await call('POST', '/api/v2/persons', { emails: [] })).status).toBe(400)
    const created = await call('POST', '/api/v2/persons', { name: 'Grace Hopper', owner_id: 1002 })
    expect(created.body.data).toMatchObject({ name: 'Grace Hopper', first_name: 'Grace', owner_id: 1002 })
    const id = created.body.data.id
    expect((await call('DELETE', `/api/v2/persons/${id}`)).body).toEqual({ success: true, data: { id } })
    expect((await call('GET', `/api/v2/persons/${id}`)).body.data.is_deleted).toBe(true)
    const list = await call('GET', '/api/v2/persons?limit=500')
    expect(list.body.data.some((p: { id: number }) => p.id === id)).toBe(false)
    expect((await call('GET', '/api/v2/persons/999999')).status).toBe(404)
  })

  it('takes a name as name, or as both halves, which it keeps as given (v2 migration guide)', async () => {
    const halves = await call('POST', '/api/v2/persons', { first_name: 'Mary Ann', last_name: 'Smith' })
    expect(halves.status).toBe(200)
    expect(halves.body.data).toMatchObject({
      name: 'Mary Ann Smith',
      first_name: 'Mary Ann',
      last_name: 'Smith',
    })
    const id = halves.body.data.id
    const lastOnly = await call('POST', '/api/v2/persons', { first_name: '', last_name: 'Curie' })
    expect(lastOnly.body.data).toMatchObject({ name: 'Curie', first_name: null, last_name: 'Curie' })
    expect((await call('POST', '/api/v2/persons', { first_name: 'Only' })).status).toBe(400)
    expect((await call('POST', '/api/v2/persons', { first_name: '', last_name: '' })).status).toBe(400)
    expect((await call('POST', '/api/v2/persons', { first_name: 1, last_name: 'X' })).status).toBe(400)
    expect((await call('PATCH', `/api/v2/persons/${id}`, { last_name: 'Jones' })).status).toBe(400)
    // A name beside the halves is taken when it is them joined, refused when it says something else (ours).
    const both = await call('PATCH', `/api/v2/persons/${id}`, {
      name: 'Mary Ann Smith',
      first_name: 'Mary Ann',
      last_name: 'Smith',
    })
    expect(both.body.data).toMatchObject({
      name: 'Mary Ann Smith',
      first_name: 'Mary Ann',
      last_name: 'Smith',
    })
    const other = { name: 'Someone Else', first_name: 'Mary Ann', last_name: 'Smith' }
    expect((await call('PATCH', `/api/v2/persons/${id}`, other)).status).toBe(400)
    const renamed = await call('PATCH', `/api/v2/persons/${id}`, { name: 'Mary Ann Jones' })
    expect(renamed.body.data).toMatchObject({
      name: 'Mary Ann Jones',
      first_name: 'Mary',
      last_name: 'Ann Jones',
    })
  })

  it('marks the first email primary when none is, and refuses two primaries (v2 migration guide)', async () => {
    const created = await call('POST', '/api/v2/persons', {
      name: 'Ada Lovelace',
      emails: [{ value: 'ada@example.com' }, { value: 'ada@home.example', label: 'home' }],
    })
    expect(created.body.data.emails).toEqual([
      { value: 'ada@example.com', primary: true, label: 'work' },
      { value: 'ada@home.example', primary: false, label: 'home' },
    ])
    const two = await call('POST', '/api/v2/persons', {
      name: 'Ada Lovelace',
      phones: [
        { value: '1', primary: true },
        { value: '2', primary: true },
      ],
    })
    expect(two.status).toBe(400)
  })

  it('finds at most 2000 persons when search is narrowed by organization', async () => {
    for (let i = 0; i < 2005; i++) {
      const id = emu.state.newPersonId()
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
    let found = 0
    let cursor: string | null = null
    do {
      const page = await call(
        'GET',
        `/api/v2/persons/search?term=capped&organization_id=504&limit=500${cursor ? `&cursor=${cursor}` : ''}`,
      )
      found += page.body.data.items.length
      cursor = page.body.additional_data.next_cursor
    } while (cursor)
    expect(found).toBe(2000)
    const unnarrowed = await call('GET', '/api/v2/persons/search?term=capped&limit=500')
    expect(unnarrowed.body.additional_data.next_cursor).not.toBeNull()
    for (const p of emu.state.livePersons()) if (p.name.startsWith('Capped')) emu.state.persons.delete(p.id)
  })

  it('answers 429 past the 2-second burst, with the window headers', async () => {
    const limited = await startPipedriveEmulator({ burst: 2 })
    try {
      const get = () => fetch(`${limited.url}/api/v2/persons`, { headers })
      await get()
      await get()
      const refused = await get()
      expect(refused.status).toBe(429)
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0)
      expect(await refused.json()).toMatchObject({ success: false })
    } finally {
      await limited.close()
    }
  })

  it('limits searches to 10 per 2 seconds on their own window, whatever the burst of the plan', async () => {
    const limited = await startPipedriveEmulator({ burst: 1000 })
    try {
      const search = () => fetch(`${limited.url}/api/v2/persons/search?term=ada`, { headers })
      for (let i = 0; i < 10; i++) expect((await search()).status).toBe(200)
      const refused = await search()
      expect(refused.status).toBe(429)
      expect(refused.headers.get('x-ratelimit-limit')).toBe('10')
      // A list is not a search: the token's own window still has room.
      expect((await fetch(`${limited.url}/api/v2/persons`, { headers })).status).toBe(200)
    } finally {
      await limited.close()
    }
  })

  it('validates webhook subscriptions as the Webhooks API does, 40 per user at most', async () => {
    const target = 'http://127.0.0.1:9/hook'
    const hook = (body: Record<string, unknown>) =>
      call('POST', '/api/v1/webhooks', {
        subscription_url: target,
        event_action: 'create',
        event_object: 'person',
        name: 'n',
        ...body,
      })
    const noName = await hook({ name: undefined })
    expect(noName.status).toBe(400)
    expect(noName.body).toEqual({ status: 'error', success: false, errors: { name: [expect.any(String)] } })
    expect((await hook({ event_action: 'added' })).body.errors).toHaveProperty('event_action')
    expect((await hook({ subscription_url: 'not a url' })).body.errors).toEqual({
      subscription_url: ['invalid or non-reachable URL'],
    })
    expect((await hook({ subscription_url: `${emu.url}/api/v2/persons` })).status).toBe(400)
    expect((await hook({ version: '1.0' })).status).toBe(400)
    const made = await hook({ http_auth_user: 'u', http_auth_password: 'p' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      status: 'ok',
      success: true,
      data: { event_action: 'create', event_object: 'person', version: '2.0', subscription_url: target },
    })
    for (let i = 1; i < 40; i++) expect((await hook({})).status).toBe(201)
    const past = await hook({})
    expect(past.status).toBe(422)
    expect(past.body.errors).toHaveProperty('user_id')
    for (const h of (await call('GET', '/api/v1/webhooks')).body.data) {
      expect((await call('DELETE', `/api/v1/webhooks/${h.id}`)).body).toEqual({ status: 'ok', success: true })
    }
    expect((await call('DELETE', '/api/v1/webhooks/999')).status).toBe(404)
  })

  it('calls a person webhook with the v2 payload and Basic credentials, retrying a failed call', async () => {
    const hooked = await startPipedriveEmulator({ persons: 3, hookRetryDelaysMs: [20, 20, 20] })
    const received: { body: Answer; authorization: string | undefined }[] = []
    let failedCreate = false
    const { createServer } = await import('node:http')
    const receiver = createServer((req, res) => {
      let text = ''
      req.on('data', (c) => {
        text += c
      })
      req.on('end', () => {
        const body = JSON.parse(text)
        received.push({ body, authorization: req.headers.authorization })
        // The first call about the create fails, so Pipedrive's retry policy must send it again.
        const fail = body.meta.action === 'create' && !failedCreate
        if (fail) failedCreate = true
        res.writeHead(fail ? 500 : 200).end()
      })
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    const port = (receiver.address() as { port: number }).port
    try {
      const at = (method: string, path: string, body?: unknown) =>
        fetch(`${hooked.url}${path}`, {
          method,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }).then(async (r) => (await r.json()) as Answer)
      await at('POST', '/api/v1/webhooks', {
        subscription_url: `http://127.0.0.1:${port}/in`,
        event_action: '*',
        event_object: 'person',
        name: 'all person events',
        http_auth_user: 'me',
        http_auth_password: 'pw',
      })
      const person = (
        await at('POST', '/api/v2/persons', {
          name: 'Hooked',
          custom_fields: { d4de1c1518b4531717c676029a45911c340390a6: 'gold' },
        })
      ).data
      const stored = hooked.state.persons.get(person.id)
      if (stored) stored.jobTitle = 'Engineer'
      await at('PATCH', `/api/v2/persons/${person.id}`, { name: 'Hooked Again' })
      await at('DELETE', `/api/v2/persons/${person.id}`)
      const deadline = Date.now() + 5000
      while (received.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      // The create failed once (500) and came again as attempt 2.
      const creates = received.filter((r) => r.body.meta.action === 'create')
      expect(creates.map((r) => r.body.meta.attempt)).toEqual([1, 2])
      expect(creates[1]?.body).toMatchObject({
        meta: { entity: 'person', entity_id: String(person.id), version: '2.0', type: 'general' },
        data: { id: person.id, name: 'Hooked' },
        previous: null,
      })
      // v2's data is "only crucial information", custom fields as typed objects (webhooks-v2-migration-guide).
      expect(Object.keys(creates[1]?.body.data ?? {}).sort()).toEqual([
        'add_time',
        'custom_fields',
        'emails',
        'first_name',
        'id',
        'label',
        'last_name',
        'name',
        'org_id',
        'owner_id',
        'phones',
        'update_time',
        'visible_to',
      ])
      expect(creates[1]?.body.data.custom_fields).toEqual({
        d4de1c1518b4531717c676029a45911c340390a6: { type: 'varchar', value: 'gold' },
      })
      const change = received.find((r) => r.body.meta.action === 'change')
      expect(change?.body.data.name).toBe('Hooked Again')
      expect(change?.body.data).not.toHaveProperty('job_title')
      expect(change?.body.previous).toMatchObject({ name: 'Hooked' })
      expect(change?.body.previous).not.toHaveProperty('id')
      const removed = received.find((r) => r.body.meta.action === 'delete')
      expect(removed?.body).toMatchObject({ data: null, previous: { id: person.id, name: 'Hooked Again' } })
      expect(received[0]?.authorization).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`)
    } finally {
      receiver.close()
      await hooked.close()
    }
  })

  it('deletes a webhook whose deliveries all failed for 3 days, and not one that succeeded in between', async () => {
    const hooked = await startPipedriveEmulator({ persons: 1, hookRetryDelaysMs: [5, 5, 5] })
    let now = Date.parse('2026-03-01T10:00:00Z')
    hooked.state.hooks.clock = () => now
    let answer = 500
    let calls = 0
    const { createServer } = await import('node:http')
    const receiver = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        calls++
        res.writeHead(answer).end()
      })
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    const port = (receiver.address() as { port: number }).port
    const at = (method: string, path: string, body?: unknown) =>
      fetch(`${hooked.url}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (r) => (await r.json()) as Answer)
    const listed = async () => (await at('GET', '/api/v1/webhooks')).data.map((h: Answer) => h.id)
    /** One person created, and the calls about it (first attempt and retries) all made. */
    const delivery = async (expectedCalls: number) => {
      const before = calls
      await at('POST', '/api/v2/persons', { name: `P${before}` })
      const deadline = Date.now() + 5000
      while (calls < before + expectedCalls && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10))
      await new Promise((r) => setTimeout(r, 30))
      expect(calls - before).toBe(expectedCalls)
    }
    try {
      const made = await at('POST', '/api/v1/webhooks', {
        subscription_url: `http://127.0.0.1:${port}/in`,
        event_action: 'create',
        event_object: 'person',
        name: 'failing',
      })
      const id = made.data.id
      await delivery(4) // day 1: failed with its 3 retries, one non-successful delivery
      now += 2 * 24 * 60 * 60 * 1000
      await delivery(4)
      expect(await listed()).toContain(id)
      // A success in between starts the count again.
      answer = 200
      await delivery(1)
      answer = 500
      now += 2 * 24 * 60 * 60 * 1000
      await delivery(4)
      expect(await listed()).toContain(id)
      now += 3 * 24 * 60 * 60 * 1000
      await delivery(4)
      expect(await listed()).not.toContain(id)
      // Deleted: later changes call nothing.
      await delivery(0)
    } finally {
      receiver.close()
      await hooked.close()
    }
  })

  it("charges each endpoint its own x-token-cost: API v2's, half of v1's", async () => {
    const costs = await startPipedriveEmulator({ persons: 3 })
    try {
      const day = new Date().toISOString().slice(0, 10)
      const spent = () => costs.state.spentTokens.get(day) ?? 0
      const call = async (method: string, path: string, body?: unknown) => {
        const before = spent()
        await fetch(`${costs.url}${path}`, {
          method,
          headers: {
            'x-api-token': DEFAULT_PIPEDRIVE_TOKEN,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
        return spent() - before
      }
      const id = costs.state.livePersons()[0]?.id
      expect(await call('GET', '/api/v2/persons')).toBe(10)
      expect(await call('GET', `/api/v2/persons/${id}`)).toBe(1)
      expect(await call('GET', '/api/v2/persons/search?term=ada')).toBe(20)
      expect(await call('PATCH', `/api/v2/persons/${id}`, { name: 'Ada Costs' })).toBe(5)
      expect(await call('POST', '/api/v2/persons', { name: 'New Costs' })).toBe(5)
      expect(await call('DELETE', `/api/v2/persons/${id}`)).toBe(3)
      expect(await call('GET', '/api/v1/users/me')).toBe(2)
      expect(await call('GET', '/api/v1/webhooks')).toBe(10)
    } finally {
      await costs.close()
    }
  })

  it("spends each request's tokens from the company's daily budget, shared by its tokens, then answers 429", async () => {
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    const limited = await startPipedriveEmulator({
      dailyTokenBudget: 21,
      tokens: [DEFAULT_PIPEDRIVE_TOKEN, other],
    })
    try {
      const get = (path: string, token = DEFAULT_PIPEDRIVE_TOKEN) =>
        fetch(`${limited.url}${path}`, { headers: { 'x-api-token': token } })
      const id = limited.state.livePersons()[0]?.id
      expect((await get('/api/v2/persons')).status).toBe(200) // a v2 list: 10
      expect((await get(`/api/v2/persons/${id}`, other)).status).toBe(200) // one v2 record: 1, same budget
      expect((await get('/api/v2/persons', other)).status).toBe(200) // 21 spent
      const refused = await get(`/api/v2/persons/${id}`)
      expect(refused.status).toBe(429)
      expect(await refused.json()).toMatchObject({ success: false, errorCode: 429 })
    } finally {
      await limited.close()
    }
  })

  it('answers a spent budget with the burst window as it stands, and API tokens their POST/PUT count left', async () => {
    const limited = await startPipedriveEmulator({ dailyTokenBudget: 15, burst: 20 })
    try {
      limited.registerClient({ clientId: 'app', clientSecret: 's', redirectUris: [] })
      const oauth = { authorization: `Bearer ${limited.state.issueTokens('app', 3600).access_token}` }
      const send = (method: string, path: string, h: Record<string, string> = headers, body?: unknown) =>
        fetch(`${limited.url}${path}`, {
          method,
          headers: body === undefined ? h : { ...h, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      const read = await send('GET', '/api/v2/persons') // 10 tokens
      expect(read.headers.get('x-daily-requests-left')).toBe('10000')
      const added = await send('POST', '/api/v2/persons', headers, { name: 'Counted' }) // 5 tokens: 15 spent
      expect(added.status).toBe(200)
      expect(added.headers.get('x-daily-requests-left')).toBe('9999')
      // OAuth requests are not told it ("Applicable only to api_token requests").
      const viaApp = await send('GET', '/api/v1/users/me', oauth)
      expect(viaApp.status).toBe(429)
      expect(viaApp.headers.get('x-daily-requests-left')).toBeNull()
      // The budget is spent: a 429 while the token's 2-second window still has room, and no retry-after.
      const refused = await send('GET', '/api/v2/persons')
      expect(refused.status).toBe(429)
      expect(await refused.json()).toMatchObject({
        success: false,
        error: 'Request over limit',
        errorCode: 429,
      })
      expect(refused.headers.get('x-ratelimit-limit')).toBe('20')
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('17')
      expect(refused.headers.get('retry-after')).toBeNull()
      expect(refused.headers.get('x-daily-requests-left')).toBe('9999')
    } finally {
      await limited.close()
    }
  })
})
