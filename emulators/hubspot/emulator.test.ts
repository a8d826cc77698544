import { onTestFinished as after, afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_HUBSPOT_TOKEN, type HubspotEmulator, startHubspotEmulator } from './index.js'

describe('HubSpot emulator', () => {
  let emu: HubspotEmulator
  const auth = { authorization: `Bearer ${DEFAULT_HUBSPOT_TOKEN}`, 'content-type': 'application/json' }
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = auth,
  ) => {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined }
  }

  beforeAll(async () => {
    emu = await startHubspotEmulator({ seed: 3, contacts: 25, tenSecondlyLimit: 1000 })
  })
  afterAll(() => emu.close())

  it('seeds the same contacts from the same seed', async () => {
    const other = await startHubspotEmulator({ seed: 3, contacts: 25 })
    try {
      expect(other.state.liveContacts().map((c) => [c.id, c.properties.email])).toEqual(
        emu.state.liveContacts().map((c) => [c.id, c.properties.email]),
      )
    } finally {
      await other.close()
    }
  })

  it('refuses a missing token with 401 and HubSpot’s error body', async () => {
    const res = await call('GET', '/crm/v3/objects/contacts', undefined, {})
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({ status: 'error', category: 'INVALID_AUTHENTICATION' })
    expect(typeof res.body.correlationId).toBe('string')
  })

  it('pages the list with an opaque after cursor, limit at most 100, with rate-limit headers', async () => {
    const first = await call('GET', '/crm/v3/objects/contacts?limit=10&properties=email')
    expect(first.status).toBe(200)
    expect(first.headers.get('x-hubspot-ratelimit-interval-milliseconds')).toBe('10000')
    expect(first.headers.get('x-hubspot-ratelimit-daily')).toBe('250000')
    expect(first.body.results).toHaveLength(10)
    expect(Object.keys(first.body.results[0].properties).sort()).toEqual([
      'createdate',
      'email',
      'hs_object_id',
      'lastmodifieddate',
    ])
    const after = first.body.paging.next.after as string
    const second = await call('GET', `/crm/v3/objects/contacts?limit=100&after=${encodeURIComponent(after)}`)
    expect(second.body.results).toHaveLength(15)
    expect(second.body.paging).toBeUndefined()
    expect((await call('GET', '/crm/v3/objects/contacts?limit=101')).status).toBe(400)
  })

  it('caps a v3 read at 100 associations per type with paging, and pages the v4 batch read per contact', async () => {
    const c = emu.state.liveContacts()[0]!
    const saved = new Set(c.deals)
    c.deals.clear()
    for (let i = 0; i < 130; i++) c.deals.add(String(90_000 + i))
    emu.state.associationPageSize = 50
    try {
      const v3 = await call('GET', `/crm/v3/objects/contacts/${c.id}?associations=deals`)
      expect(v3.body.associations.deals.results).toHaveLength(100)
      expect(typeof v3.body.associations.deals.paging.next.after).toBe('string')
      const read = (inputs: unknown[]) =>
        call('POST', '/crm/v4/associations/contacts/deals/batch/read', { inputs })
      const first = await read([{ id: c.id }])
      expect(first.status).toBe(200)
      expect(first.body.results[0].to).toHaveLength(50)
      const seen = first.body.results[0].to.map((t: { toObjectId: number }) => String(t.toObjectId))
      let after = first.body.results[0].paging?.next?.after as string | undefined
      while (after) {
        const next = await read([{ id: c.id, after }])
        seen.push(...next.body.results[0].to.map((t: { toObjectId: number }) => String(t.toObjectId)))
        after = next.body.results[0].paging?.next?.after
      }
      expect(seen).toEqual([...c.deals])
    } finally {
      c.deals.clear()
      for (const id of saved) c.deals.add(id)
      emu.state.associationPageSize = 500
    }
  })

  it('validates written properties and refuses a duplicate email with 409', async () => {
    const bad = await call('POST', '/crm/v3/objects/contacts', {
      properties: { email: 'nope', createdate: '1', favourite_colour: 'red' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.category).toBe('VALIDATION_ERROR')
    expect(bad.body.message).toMatch(/^Property values were not valid: /)
    expect(bad.body.message).toContain('INVALID_EMAIL')
    expect(bad.body.message).toContain('READ_ONLY_VALUE')
    expect(bad.body.message).toContain('PROPERTY_DOESNT_EXIST')
    const taken = emu.state.liveContacts()[0]!
    const dup = await call('POST', '/crm/v3/objects/contacts', {
      properties: { email: taken.properties.email },
    })
    expect(dup.status).toBe(409)
    expect(dup.body.message).toBe(`Contact already exists. Existing ID: ${taken.id}`)
  })

  it('archives with 204, and answers 204 again for an archived or unknown id, as HubSpot does', async () => {
    const created = await call('POST', '/crm/v3/objects/contacts', {
      properties: { email: 'archive.me@example.com' },
    })
    expect(created.status).toBe(201)
    const bearer = { authorization: auth.authorization }
    const archive = (id: string) => call('DELETE', `/crm/v3/objects/contacts/${id}`, undefined, bearer)
    expect((await archive(created.body.id)).status).toBe(204)
    expect((await call('GET', `/crm/v3/objects/contacts/${created.body.id}`)).status).toBe(404)
    // HubSpot's archive is idempotent (n8n-io/n8n#3219): neither case is a 404.
    expect((await archive(created.body.id)).status).toBe(204)
    expect((await archive('834872398')).status).toBe(204)
    expect(emu.state.contacts.has('834872398')).toBe(false)
  })

  it('compares hs_object_id as a number, so searching past the last id read goes on in id order', async () => {
    const ids = emu.state.liveContacts().map((c) => c.id)
    // As text, '9' sorts after every two-digit id; as a number, before them all.
    const res = await call('POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'hs_object_id', operator: 'GT', value: '9' }] }],
      sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
      limit: 5,
    })
    expect(res.status).toBe(200)
    expect((res.body.results as { id: string }[]).map((c) => c.id)).toEqual(ids.slice(0, 5))
    const past = await call('POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'hs_object_id', operator: 'GT', value: ids[2] }] }],
      sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
      limit: 2,
    })
    expect((past.body.results as { id: string }[]).map((c) => c.id)).toEqual(ids.slice(3, 5))
  })

  it('takes at most 5 filter groups, 6 filters in a group and 18 in all, the limits the search guide gives', async () => {
    const filter = { propertyName: 'hs_object_id', operator: 'GT', value: '0' }
    // An account of its own, so these searches do not meet the four-per-second search limit.
    const local = await startHubspotEmulator({ seed: 3, contacts: 5, searchPerSecond: 100 })
    after(() => local.close())
    const search = async (groups: number, perGroup: number) => {
      const res = await fetch(`${local.url}/crm/v3/objects/contacts/search`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          filterGroups: Array.from({ length: groups }, () => ({
            filters: Array.from({ length: perGroup }, () => filter),
          })),
          limit: 1,
        }),
      })
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    expect((await search(1, 6)).status).toBe(200)
    expect((await search(3, 6)).status).toBe(200)
    expect((await search(5, 3)).status).toBe(200)
    for (const [groups, perGroup] of [
      [1, 7],
      [4, 5],
      [6, 1],
    ] as const) {
      const refused = await search(groups, perGroup)
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' })
    }
  })

  it('finds a contact by its full email address through the text query, as HubSpot does', async () => {
    const lagless = await startHubspotEmulator({ seed: 3, contacts: 5, searchLagMs: 0 })
    try {
      const c = lagless.state.liveContacts()[0]!
      const search = async (query: string) => {
        const res = await fetch(`${lagless.url}/crm/v3/objects/contacts/search`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ query }),
        })
        return ((await res.json()) as { results: { id: string }[] }).results.map((r) => r.id)
      }
      // HubSpot/hubspot-api-nodejs#231: `query: "bcooper@biglytics.net"` finds that contact.
      expect(await search(c.properties.email!)).toContain(c.id)
      expect(await search(c.properties.email!.toUpperCase())).toContain(c.id)
      // Words still match from their start, not from inside.
      expect(await search(c.properties.lastname!)).toContain(c.id)
      expect(await search(c.properties.lastname!.slice(2))).not.toContain(c.id)
    } finally {
      await lagless.close()
    }
  })

  it('takes a search query of up to 3000 characters (PublicObjectSearchRequest.query)', async () => {
    const local = await startHubspotEmulator({ seed: 3, contacts: 5, searchPerSecond: 100 })
    const search = (query: string) =>
      fetch(`${local.url}/crm/v3/objects/contacts/search`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ query, limit: 1 }),
      })
    try {
      expect((await search('a'.repeat(3000))).status).toBe(200)
      const long = await search('a'.repeat(3001))
      expect(long.status).toBe(400)
      expect(await long.json()).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' })
    } finally {
      await local.close()
    }
  })

  it('searches with filters, refuses paging past 10,000 results, and limits searches per second', async () => {
    const owner = emu.state.liveContacts()[0]!.properties.hubspot_owner_id
    const res = await call('POST', '/crm/v3/objects/contacts/search', {
      filterGroups: [{ filters: [{ propertyName: 'hubspot_owner_id', operator: 'EQ', value: owner }] }],
      properties: ['hubspot_owner_id'],
      limit: 200,
    })
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(
      emu.state.liveContacts().filter((c) => c.properties.hubspot_owner_id === owner).length,
    )
    expect(res.headers.get('x-hubspot-ratelimit-max')).toBeNull()
    const past = await call('POST', '/crm/v3/objects/contacts/search', { after: '9950', limit: 100 })
    expect(past.status).toBe(400)
    expect(past.body).toMatchObject({ status: 'error', category: 'VALIDATION_ERROR' })
    expect(past.body.message).toContain('10000')
    const limited = await startHubspotEmulator({ searchPerSecond: 1 })
    try {
      const search = () =>
        fetch(`${limited.url}/crm/v3/objects/contacts/search`, { method: 'POST', headers: auth, body: '{}' })
      expect((await search()).status).toBe(200)
      const refused = await search()
      expect(refused.status).toBe(429)
      expect(await refused.json()).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'SECONDLY' })
    } finally {
      await limited.close()
    }
  })

  it("counts searches per account: a second token of the portal shares the first one's second", async () => {
    const other = 'pat-na1-99999999-2222-4333-8444-555555555555'
    const limited = await startHubspotEmulator({ searchPerSecond: 2, tokens: [DEFAULT_HUBSPOT_TOKEN, other] })
    try {
      const search = (token: string) =>
        fetch(`${limited.url}/crm/v3/objects/contacts/search`, {
          method: 'POST',
          headers: { ...auth, authorization: `Bearer ${token}` },
          body: '{}',
        })
      expect((await search(DEFAULT_HUBSPOT_TOKEN)).status).toBe(200)
      expect((await search(DEFAULT_HUBSPOT_TOKEN)).status).toBe(200)
      expect((await search(other)).status).toBe(429)
    } finally {
      await limited.close()
    }
  })

  it('answers 429 TEN_SECONDLY_ROLLING past the ten-second limit, with its headers', async () => {
    const limited = await startHubspotEmulator({ tenSecondlyLimit: 2 })
    try {
      const list = () => fetch(`${limited.url}/crm/v3/objects/contacts`, { headers: auth })
      await list()
      await list()
      const refused = await list()
      expect(refused.status).toBe(429)
      expect(refused.headers.get('x-hubspot-ratelimit-remaining')).toBe('0')
      expect(await refused.json()).toMatchObject({ status: 'error', policyName: 'TEN_SECONDLY_ROLLING' })
    } finally {
      await limited.close()
    }
  })

  it('refreshes OAuth tokens, refusing an unknown refresh token with BAD_REFRESH_TOKEN', async () => {
    emu.registerClient({ clientId: 'app', clientSecret: 'secret', redirectUris: ['http://localhost/cb'] })
    const tokens = emu.state.issueTokens('app', ['oauth', 'crm.objects.contacts.read'], 1800)
    const form = (f: Record<string, string>) =>
      fetch(`${emu.url}/oauth/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(f).toString(),
      })
    const ok = await form({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'app',
      client_secret: 'secret',
    })
    expect(await ok.json()).toMatchObject({
      token_type: 'bearer',
      refresh_token: tokens.refresh_token,
      expires_in: 1800,
    })
    const bad = await form({
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: 'app',
      client_secret: 'secret',
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ status: 'BAD_REFRESH_TOKEN' })
    emu.state.expireAccessToken(tokens.access_token)
    const expired = await call('GET', '/crm/v3/objects/contacts', undefined, {
      authorization: `Bearer ${tokens.access_token}`,
    })
    expect(expired.status).toBe(401)
    expect(expired.body.category).toBe('EXPIRED_AUTHENTICATION')
    const readOnly = emu.state.issueTokens('app', ['oauth', 'crm.objects.contacts.read'], 1800)
    const write = await call(
      'POST',
      '/crm/v3/objects/contacts',
      { properties: {} },
      {
        authorization: `Bearer ${readOnly.access_token}`,
        'content-type': 'application/json',
      },
    )
    expect(write.status).toBe(403)
    expect(write.body.category).toBe('MISSING_SCOPES')
  })
})
