import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { DEFAULT_LEVER_API_KEY, startLeverEmulator } from './index.js'

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`
type Page = {
  data: { id: string; createdAt: number; applications: unknown[] }[]
  hasNext: boolean
  next?: string
}

describe('Lever emulator', () => {
  it('takes Basic auth, pages newest first with offset tokens, and answers {code, message} errors', async () => {
    const emu = await startLeverEmulator({ contacts: 10 })
    try {
      const get = (path: string, key = DEFAULT_LEVER_API_KEY) =>
        fetch(`${emu.url}/v1${path}`, { headers: { authorization: basic(key) } })
      const denied = await get('/opportunities', 'nope')
      expect(denied.status).toBe(401)
      expect(await denied.json()).toMatchObject({ code: 'UnauthorizedError' })
      const first = (await (await get('/opportunities?limit=3&confidentiality=all')).json()) as Page
      expect(first.hasNext).toBe(true)
      expect(first.next).toMatch(/^%5B1%2C\d+%2C%22/)
      expect(first.data.flatMap((o) => o.applications).every((a) => typeof a === 'string')).toBe(true)
      const ordered = emu.state.ordered().map((o) => o.id)
      expect(first.data.map((o) => o.id)).toEqual(ordered.slice(0, 3))
      // The token as a client sends it: encoded once more as a query parameter.
      const second = (await (
        await get(
          `/opportunities?limit=3&confidentiality=all&offset=${encodeURIComponent(first.next as string)}`,
        )
      ).json()) as Page
      expect(second.data.map((o) => o.id)).toEqual(ordered.slice(3, 6))
      expect((await get('/opportunities?limit=101')).status).toBe(400)
      expect((await get('/opportunities?offset=garbage')).status).toBe(400)
      expect((await get('/opportunities?updated_at_start=yesterday')).status).toBe(400)
      const missing = await get('/opportunities/nope')
      expect(missing.status).toBe(404)
      expect(await missing.json()).toMatchObject({ code: 'NotFoundError' })
      const expanded = (await (await get('/opportunities?limit=20&expand=applications')).json()) as Page
      expect(expanded.data.some((o) => typeof o.applications[0] === 'object')).toBe(true)
    } finally {
      await emu.close()
    }
  })

  it('filters by repeated stage_id and archive_reason_id, and empties its token bucket into 429', async () => {
    const emu = await startLeverEmulator({ contacts: 30, ratePerSecond: 0.001, burst: 4 })
    try {
      const auth = { authorization: basic(DEFAULT_LEVER_API_KEY) }
      const [a, b] = emu.state.stages
      const res = await fetch(
        `${emu.url}/v1/opportunities?stage_id=${a?.id}&stage_id=${b?.id}&confidentiality=all`,
        {
          headers: auth,
        },
      )
      const body = (await res.json()) as Page
      expect(body.data.map((o) => o.id)).toEqual(
        emu.state
          .ordered()
          .filter((o) => o.stage === a?.id || o.stage === b?.id)
          .map((o) => o.id),
      )
      const statuses: number[] = []
      for (let i = 0; i < 5; i++)
        statuses.push((await fetch(`${emu.url}/v1/stages`, { headers: auth })).status)
      expect(statuses).toEqual([200, 200, 200, 429, 429])
    } finally {
      await emu.close()
    }
  })

  it('lists confidential opportunities only when asked for all, and only to a key with confidential access', async () => {
    const emu = await startLeverEmulator({
      contacts: 40,
      apiKeys: [DEFAULT_LEVER_API_KEY, 'no_confidential'],
      keysWithoutConfidentialAccess: ['no_confidential'],
    })
    try {
      const ids = async (query: string, key = DEFAULT_LEVER_API_KEY) => {
        const res = await fetch(`${emu.url}/v1/opportunities?limit=100${query}`, {
          headers: { authorization: basic(key) },
        })
        return ((await res.json()) as Page).data.map((o) => o.id)
      }
      const all = emu.state.ordered()
      const open = all.filter((o) => o.confidentiality === 'non-confidential').map((o) => o.id)
      expect(open.length).toBeLessThan(all.length)
      expect(await ids('')).toEqual(open)
      expect(await ids('&confidentiality=all')).toEqual(all.map((o) => o.id))
      expect(await ids('&confidentiality=all', 'no_confidential')).toEqual(open)
      const wrong = await fetch(`${emu.url}/v1/opportunities?confidentiality=secret`, {
        headers: { authorization: basic(DEFAULT_LEVER_API_KEY) },
      })
      expect(wrong.status).toBe(400)
    } finally {
      await emu.close()
    }
  })

  it('posting_id leaves archived opportunities to archived_posting_id; archive reasons list inactive ones and filter by type', async () => {
    const emu = await startLeverEmulator({ contacts: 60 })
    try {
      const get = async (path: string) => {
        const res = await fetch(`${emu.url}/v1${path}`, {
          headers: { authorization: basic(DEFAULT_LEVER_API_KEY) },
        })
        return {
          status: res.status,
          body: (await res.json()) as { data: { id: string; status?: string; type?: string }[] },
        }
      }
      const posting = emu.state.postings[0] as string
      const applied = emu.state.ordered().filter((o) => o.applications.some((a) => a.posting === posting))
      const ids = async (filter: string) =>
        (await get(`/opportunities?${filter}=${posting}`)).body.data.map((o) => o.id)
      const active = applied.filter((o) => o.archived === null).map((o) => o.id)
      const archived = applied.filter((o) => o.archived !== null).map((o) => o.id)
      expect(active.length).toBeGreaterThan(0)
      expect(archived.length).toBeGreaterThan(0)
      expect(await ids('posting_id')).toEqual(active)
      expect(await ids('archived_posting_id')).toEqual(archived)
      emu.state.postingFilterKeepsArchived = true
      expect(await ids('posting_id')).toEqual(applied.map((o) => o.id))

      const reasons = await get('/archive_reasons')
      expect(reasons.body.data.map((r) => r.status)).toContain('inactive')
      expect(reasons.body.data).toHaveLength(emu.state.archiveReasons.length)
      const hired = await get('/archive_reasons?type=hired')
      expect(hired.body.data.map((r) => r.type)).toEqual(['hired'])
      expect((await get('/archive_reasons?type=inactive')).status).toBe(400)
    } finally {
      await emu.close()
    }
  })

  it('makes webhooks with a signature token, refuses http and unknown events, and signs its calls to groups turned on', async () => {
    const calls: { body: Record<string, unknown>; attempt: number }[] = []
    let failFirst = true
    const receiver = createServer((req, res) => {
      let text = ''
      req.on('data', (c: Buffer) => {
        text += c.toString('utf8')
      })
      req.on('end', () => {
        calls.push({ body: JSON.parse(text) as Record<string, unknown>, attempt: calls.length })
        // The first call fails: Lever tries again.
        res.writeHead(failFirst ? 500 : 200).end()
        failFirst = false
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    const emu = await startLeverEmulator({
      contacts: 5,
      webhooks: { groupsOn: ['candidateStageChange'], plainHttp: true, retryBaseMs: 10 },
    })
    const strict = await startLeverEmulator({ contacts: 1 })
    try {
      const send = (e: typeof emu, method: string, path: string, body?: unknown) =>
        fetch(`${e.url}/v1${path}`, {
          method,
          headers: {
            authorization: basic(DEFAULT_LEVER_API_KEY),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      // Lever only calls HTTPS endpoints.
      const http = await send(strict, 'POST', '/webhooks', { url, event: 'candidateStageChange' })
      expect(http.status).toBe(400)
      expect(await http.json()).toMatchObject({ code: 'BadRequestError' })
      expect((await send(emu, 'POST', '/webhooks', { url, event: 'candidateMoved' })).status).toBe(400)
      const badOrigin = {
        url,
        event: 'candidateStageChange',
        configuration: { conditions: { origins: ['x'] } },
      }
      expect((await send(emu, 'POST', '/webhooks', badOrigin)).status).toBe(400)

      const made = await send(emu, 'POST', '/webhooks', { url, event: 'candidateStageChange' })
      expect(made.status).toBe(201)
      const hook = (
        (await made.json()) as { data: { id: string; configuration: { signatureToken: string } } }
      ).data
      expect(hook.configuration.signatureToken).toMatch(/^[0-9a-f]{48}$/)
      const listed = (await (await send(emu, 'GET', '/webhooks')).json()) as {
        data: { configuration: object }[]
      }
      expect(listed.data[0]?.configuration).toEqual({})
      // A group not turned on sends nothing: this one's archive change is not called.
      await send(emu, 'POST', '/webhooks', { url, event: 'candidateArchiveChange' })

      const opportunity = emu.state.ordered()[0] as { id: string; contact: string; stage: string }
      const from = opportunity.stage
      const to = from === 'offer' ? 'lead-new' : 'offer'
      const moved = await send(emu, 'PUT', `/opportunities/${opportunity.id}/stage`, { stage: to })
      expect(moved.status).toBe(200)
      const reason = emu.state.archiveReasons[1]?.id
      expect((await send(emu, 'PUT', `/opportunities/${opportunity.id}/archived`, { reason })).status).toBe(
        200,
      )
      for (let i = 0; i < 200 && calls.length < 2; i++) await new Promise((r) => setTimeout(r, 10))
      expect(calls).toHaveLength(2)
      const [first, retried] = calls.map((c) => c.body)
      expect(first?.data).toEqual({
        opportunityId: opportunity.id,
        candidateId: opportunity.id,
        contactId: opportunity.contact,
        toStageId: to,
        fromStageId: from,
      })
      expect(retried?.event).toBe('candidateStageChange')
      // A retry is the same call again: same event id, time, token and signature.
      expect(retried).toEqual(first)
      for (const body of [first, retried]) {
        const signed = createHmac('sha256', hook.configuration.signatureToken)
          .update(`${body?.token}${body?.triggeredAt}`)
          .digest('hex')
        expect(body?.signature).toBe(signed)
      }

      expect((await send(emu, 'DELETE', `/webhooks/${hook.id}`)).status).toBe(204)
      expect((await send(emu, 'DELETE', `/webhooks/${hook.id}`)).status).toBe(404)
      expect((await send(emu, 'POST', '/opportunities', { name: 'No perform_as' })).status).toBe(400)
    } finally {
      await emu.close()
      await strict.close()
      await new Promise((resolve) => receiver.close(resolve))
    }
  })

  it('refuses an OAuth token (403) on the endpoints its scopes do not reach; an API key reaches them all', async () => {
    const emu = await startLeverEmulator({ contacts: 40, webhooks: { plainHttp: true } })
    try {
      const tokenWith = (...scopes: string[]) => emu.oauth.issue('app', scopes).access_token as string
      const call = (token: string | undefined, method: string, path: string, body?: unknown) =>
        fetch(`${emu.url}/v1${path}`, {
          method,
          headers: {
            authorization: token ? `Bearer ${token}` : basic(DEFAULT_LEVER_API_KEY),
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        })
      const hook = { url: 'http://127.0.0.1:9/hook', event: 'candidateStageChange' }
      const opportunity = emu.state.ordered()[0]?.id as string

      // "webhooks:write:admin: Manage all webhooks" makes and removes webhooks, but lists none.
      const manage = tokenWith('webhooks:write:admin')
      const made = await call(manage, 'POST', '/webhooks', hook)
      expect(made.status).toBe(201)
      const listed = await call(manage, 'GET', '/webhooks')
      expect(listed.status).toBe(403)
      expect(await listed.json()).toEqual({
        code: 'ForbiddenError',
        message: 'This access token was not granted webhooks:read:admin',
      })
      const id = ((await made.json()) as { data: { id: string } }).data.id
      // "webhooks:read:admin: View all webhooks" lists them, and changes nothing.
      const view = tokenWith('webhooks:read:admin')
      expect(
        ((await (await call(view, 'GET', '/webhooks')).json()) as { data: unknown[] }).data,
      ).toHaveLength(1)
      expect((await call(view, 'DELETE', `/webhooks/${id}`)).status).toBe(403)
      expect((await call(view, 'POST', '/webhooks', hook)).status).toBe(403)
      expect((await call(manage, 'DELETE', `/webhooks/${id}`)).status).toBe(204)

      // Reading opportunities reaches neither their offers nor the stages and archive reasons.
      const opportunities = tokenWith('opportunities:read:admin')
      expect((await call(opportunities, 'GET', '/opportunities?limit=1')).status).toBe(200)
      expect((await call(opportunities, 'GET', `/opportunities/${opportunity}`)).status).toBe(200)
      for (const path of [
        `/opportunities/${opportunity}/offers`,
        '/stages',
        '/archive_reasons',
        '/webhooks',
      ]) {
        expect((await call(opportunities, 'GET', path)).status, path).toBe(403)
      }
      const change = await call(opportunities, 'PUT', `/opportunities/${opportunity}/stage`, {
        stage: 'offer',
      })
      expect(change.status).toBe(403)
      // "opportunities:write:admin: View and manage all opportunities" reads them too.
      expect((await call(tokenWith('opportunities:write:admin'), 'GET', '/opportunities')).status).toBe(200)
      const reads = tokenWith('offers:read:admin', 'stages:read:admin', 'archive_reasons:read:admin')
      for (const path of [`/opportunities/${opportunity}/offers`, '/stages', '/archive_reasons']) {
        expect((await call(reads, 'GET', path)).status, path).toBe(200)
      }
      expect((await call(reads, 'GET', '/opportunities')).status).toBe(403)

      // An API key is not scoped.
      for (const path of [
        '/webhooks',
        `/opportunities/${opportunity}/offers`,
        '/stages',
        '/archive_reasons',
      ]) {
        expect((await call(undefined, 'GET', path)).status, path).toBe(200)
      }
    } finally {
      await emu.close()
    }
  })

  it('shows confidential opportunities only to a token granted confidential:access:admin', async () => {
    const emu = await startLeverEmulator({ contacts: 40 })
    try {
      const ids = async (...scopes: string[]) => {
        const token = emu.oauth.issue('app', ['opportunities:read:admin', ...scopes]).access_token
        const res = await fetch(`${emu.url}/v1/opportunities?limit=100&confidentiality=all`, {
          headers: { authorization: `Bearer ${token}` },
        })
        return ((await res.json()) as Page).data.map((o) => o.id)
      }
      const all = emu.state.ordered()
      const open = all.filter((o) => o.confidentiality === 'non-confidential').map((o) => o.id)
      expect(open.length).toBeLessThan(all.length)
      expect(await ids()).toEqual(open)
      expect(await ids('confidential:access:admin')).toEqual(all.map((o) => o.id))
    } finally {
      await emu.close()
    }
  })

  it('refuses (403) a request for confidential data from a credential without access to it', async () => {
    const emu = await startLeverEmulator({
      contacts: 40,
      apiKeys: [DEFAULT_LEVER_API_KEY, 'no_confidential'],
      keysWithoutConfidentialAccess: ['no_confidential'],
    })
    try {
      const secret = emu.state.ordered().find((o) => o.confidentiality === 'confidential')?.id as string
      const open = emu.state.ordered().find((o) => o.confidentiality === 'non-confidential')?.id as string
      const reads = emu.oauth.issue('app', ['opportunities:read:admin', 'offers:read:admin']).access_token
      const granted = emu.oauth.issue('app', [
        'opportunities:read:admin',
        'offers:read:admin',
        'confidential:access:admin',
      ]).access_token
      const status = async (authorization: string, path: string) =>
        (await fetch(`${emu.url}/v1${path}`, { headers: { authorization } })).status
      for (const without of [`Bearer ${reads}`, basic('no_confidential')]) {
        expect(await status(without, `/opportunities/${secret}`), without).toBe(403)
        expect(await status(without, `/opportunities/${secret}/offers`), without).toBe(403)
        expect(await status(without, '/opportunities?confidentiality=confidential'), without).toBe(403)
        expect(await status(without, `/opportunities/${open}`), without).toBe(200)
      }
      const refused = await fetch(`${emu.url}/v1/opportunities/${secret}`, {
        headers: { authorization: `Bearer ${reads}` },
      })
      expect(await refused.json()).toMatchObject({ code: 'ForbiddenError' })
      for (const withAccess of [`Bearer ${granted}`, basic(DEFAULT_LEVER_API_KEY)]) {
        expect(await status(withAccess, `/opportunities/${secret}`), withAccess).toBe(200)
        expect(await status(withAccess, `/opportunities/${secret}/offers`), withAccess).toBe(200)
        expect(await status(withAccess, '/opportunities?confidentiality=confidential'), withAccess).toBe(200)
      }
    } finally {
      await emu.close()
    }
  })

  it("refuses at authorize (invalid_scope, back to the redirect URI) a scope not on Lever's list", async () => {
    const emu = await startLeverEmulator({ contacts: 1 })
    try {
      const callback = 'https://app.example/callback'
      emu.oauth.registerClient('app', 'secret', [callback])
      const request = {
        client_id: 'app',
        redirect_uri: callback,
        response_type: 'code',
        state: 's1',
        audience: 'https://api.lever.co/v1/',
      }
      const authorize = (method: 'GET' | 'POST', scope: string) => {
        const form = new URLSearchParams({
          ...request,
          scope,
          ...(method === 'POST' ? { decision: 'allow' } : {}),
        })
        return method === 'GET'
          ? fetch(`${emu.url}/authorize?${form}`, { redirect: 'manual' })
          : fetch(`${emu.url}/authorize`, { method, body: form, redirect: 'manual' })
      }
      // Shaped like Lever's scopes but not among them: "opportunity" for "opportunities", a write scope offers lack.
      for (const method of ['GET', 'POST'] as const) {
        for (const wrong of ['opportunity:read:admin', 'offers:write:admin']) {
          const refused = await authorize(method, `offline_access opportunities:read:admin ${wrong}`)
          expect(refused.status, `${method} ${wrong}`).toBe(302)
          const back = new URL(refused.headers.get('location') as string)
          expect(`${back.origin}${back.pathname}`).toBe(callback)
          expect(Object.fromEntries(back.searchParams)).toEqual({
            error: 'invalid_scope',
            error_description: `Unknown scope: ${wrong} (see https://hire.lever.co/developer/documentation#scopes)`,
            state: 's1',
          })
        }
      }
      expect(emu.oauth.codes.size).toBe(0)

      // Scopes on the list, the singular "contact" and offline_access among them, reach consent and a code.
      const listed = 'offline_access contact:read:admin eeo_responses_pii:read:admin webhooks:write:admin'
      expect((await authorize('GET', listed)).status).toBe(200)
      const granted = await authorize('POST', listed)
      expect(granted.status).toBe(302)
      expect(new URL(granted.headers.get('location') as string).searchParams.get('code')).toMatch(
        /^[0-9a-f]{32}$/,
      )
    } finally {
      await emu.close()
    }
  })
})
