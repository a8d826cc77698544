import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_PERSONAL_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../emulators/posthog/index.js'
import { verifyRedirectSig } from '../src/authorization/index.js'
import { keyPageSlots } from '../src/authorization/key-page.js'
import { type AuthServer, browserGet, browserPost, startAuthServer } from './support/auth-server.js'
import { storeKinds } from './support/stores.js'

const APP = 'https://app.example.com'

describe.each(storeKinds())('API-key authorization on %s', (store) => {
  let s: AuthServer
  let posthog: PosthogEmulator
  beforeAll(async () => {
    posthog = await startPosthogEmulator({ size: { events: 20 } })
    s = await startAuthServer(store)
    const res = await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [`${APP}/`] })
    expect(res).toMatchObject({ status: 200, body: { allowed_redirect_origins: [APP] } })
  })
  afterAll(async () => {
    await s?.close()
    await posthog?.close()
  })

  const authPath = (query: Record<string, string>) =>
    `${s.url}/unified/integration/auth/${s.workspaceId}/posthog?${new URLSearchParams(query)}`

  async function keyPage(query: Record<string, string> = {}) {
    const res = await browserGet(
      authPath({ success_redirect: `${APP}/ok`, failure_redirect: `${APP}/failed`, state: 'st-1', ...query }),
    )
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/plain/)
    return res.text
  }

  it('answers the URL to send the user to as text/plain, or redirects there with redirect=1', async () => {
    const url = await keyPage()
    expect(url).toMatch(new RegExp(`^${s.url}/unified/integration/key/[A-Za-z0-9_-]{43}$`))
    const redirected = await browserGet(authPath({ success_redirect: `${APP}/ok`, redirect: '1' }))
    expect(redirected.status).toBe(302)
    expect(redirected.location).toMatch(/\/unified\/integration\/key\//)
  })

  it("is not an OAuth callback's state: the callback refuses it and leaves it for the page", async () => {
    const url = await keyPage()
    const state = url.split('/').at(-1)!
    const callback = await browserGet(
      `${s.url}/unified/integration/oauth/callback?${new URLSearchParams({ state, code: 'c0de' })}`,
    )
    expect(callback.status).toBe(400)
    expect(callback.location).toBeUndefined()
    expect((await browserGet(url)).status).toBe(200)
  })

  it('shows a form with the provider fields that cannot be framed or cached', async () => {
    const page = await browserGet(await keyPage())
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    expect(page.headers['x-frame-options']).toBe('DENY')
    expect(page.headers['cache-control']).toBe('no-store')
    expect(page.text).toContain('Connect your PostHog account')
    expect(page.text).toMatch(/<input[^>]+name="token"[^>]+type="password"/)
  })

  it('keeps the user on the page with the provider message after a bad key, then connects with a good one', async () => {
    const url = await keyPage({ external_xref: 'customer-7', scopes: 'analytics_event_read' })
    const bad = await browserPost(url, { token: 'phx_wrong', api_url: posthog.url })
    expect(bad.status).toBe(400)
    // The address was typed on the page: its status is not shown (the page would tell what any address
    // the server reaches answers).
    expect(bad.text).toContain('could not verify these credentials. Check them and try again.')
    expect(bad.text).toContain(`value="${posthog.url}"`)
    expect(bad.text).not.toContain('phx_wrong')

    const good = await browserPost(url, { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url })
    expect(good.status).toBe(303)
    const back = new URL(good.location!)
    expect(back.origin + back.pathname).toBe(`${APP}/ok`)
    const p = Object.fromEntries(back.searchParams)
    expect(p).toMatchObject({ state: 'st-1', type: 'posthog' })
    expect(p.nonce).toMatch(/^[0-9a-f]{32}$/)
    const signed = { id: p.id!, state: p.state!, nonce: p.nonce!, type: p.type! }
    expect(verifyRedirectSig(s.secret, signed, p.sig!)).toBe(true)
    expect(verifyRedirectSig(s.secret, { ...signed, id: 'cn_na_forged' }, p.sig!)).toBe(false)
    expect(verifyRedirectSig(s.secret, { ...signed, state: 'st-2' }, p.sig!)).toBe(false)

    const conn = await s.api<Record<string, unknown>>('GET', `/unified/connection/${p.id}`)
    expect(conn.status).toBe(200)
    expect(conn.body).toMatchObject({
      integration_type: 'posthog',
      external_xref: 'customer-7',
      permissions: ['analytics_event_read'],
    })
    expect(JSON.stringify(conn.body)).not.toContain(DEFAULT_PERSONAL_API_KEY)

    // The state is spent: submitting again creates nothing and says why.
    const before = (await s.api<unknown[]>('GET', '/unified/connection')).body.length
    const replay = await browserPost(url, { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url })
    expect(replay.status).toBe(303)
    expect(new URL(replay.location!).searchParams.get('error_code')).toBe('state_used')
    expect((await s.api<unknown[]>('GET', '/unified/connection')).body.length).toBe(before)
  })

  it('ends in the failure redirect when the user cancels', async () => {
    const url = await keyPage()
    const res = await browserGet(`${url}/cancel`)
    expect(res.status).toBe(303)
    const back = new URL(res.location!)
    expect(back.pathname).toBe('/failed')
    expect(back.searchParams.get('error_code')).toBe('cancelled')
    expect(back.searchParams.get('error')).toMatch(/cancelled/)
    expect(back.searchParams.get('state')).toBe('st-1')
  })

  it('gives up after five rejected keys', async () => {
    const url = await keyPage()
    for (let i = 0; i < 4; i++)
      expect((await browserPost(url, { token: `phx_bad${i}`, api_url: posthog.url })).status).toBe(400)
    const last = await browserPost(url, { token: 'phx_bad5', api_url: posthog.url })
    expect(last.status).toBe(303)
    expect(new URL(last.location!).searchParams.get('error_code')).toBe('too_many_attempts')
  })

  it('verifies at most five keys of one link, however many are sent at once', async () => {
    const url = await keyPage()
    const tokens = Array.from({ length: 12 }, (_, i) => `phx_parallel_${i}`)
    const answers = await Promise.all(
      tokens.map((token) => browserPost(url, { token, api_url: posthog.url })),
    )
    // Before, every submit passed the count (taken only after its failed verification) before any was
    // counted: all twelve keys were tried at the provider.
    const tried = posthog
      .requests()
      .filter((r) => tokens.some((t) => String(r.headers.authorization ?? '').includes(t)))
    expect(tried.length).toBeLessThanOrEqual(5)
    expect(answers.filter((a) => a.status === 400).length).toBeLessThanOrEqual(4)
    const ended = answers.filter((a) => a.status === 303)
    expect(ended.length).toBeGreaterThanOrEqual(8)
    for (const a of ended) {
      expect(['too_many_attempts', 'state_used']).toContain(
        new URL(a.location!).searchParams.get('error_code'),
      )
    }
  })

  it("says to retry, without spending an attempt, while the page's bound of provider calls is full", async () => {
    const url = await keyPage()
    const limiter = s.services.transport.workspaceLimiter
    const lane = keyPageSlots(s.workspaceId)
    const held: (() => void)[] = []
    for (let slot = limiter.tryAcquire(lane); slot; slot = limiter.tryAcquire(lane)) held.push(slot)
    const queued: Promise<() => void>[] = []
    while (!limiter.full(lane)) queued.push(limiter.acquire(lane))
    posthog.clearRequests()
    try {
      // More submits than the link's five attempts: none is spent, none ends the authorization.
      for (let i = 0; i < 6; i++) {
        const busy = await browserPost(url, { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url })
        expect(busy.status).toBe(429)
        expect(busy.headers['retry-after']).toBe('1')
        expect(busy.text).toContain('so these credentials were not checked. Try again in a moment.')
      }
      expect(posthog.requests()).toEqual([])
    } finally {
      // Each queued call frees its slot as it gets it, so the next one gets its turn.
      const drained = Promise.all(queued.map(async (slot) => (await slot)()))
      for (const release of held) release()
      await drained
    }
    const connected = await browserPost(url, { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url })
    expect(connected.status).toBe(303)
    expect(new URL(connected.location!).pathname).toBe('/ok')
  })

  it('refuses a forged state without touching anything', async () => {
    const forged = `${s.url}/unified/integration/key/${'A'.repeat(43)}`
    for (const res of [
      await browserGet(forged),
      await browserPost(forged, { token: DEFAULT_PERSONAL_API_KEY }),
    ]) {
      expect(res.status).toBe(400)
      expect(res.location).toBeUndefined()
      expect(res.text).toContain('not valid')
    }
    expect((await browserGet(`${s.url}/unified/integration/key/short`)).status).toBe(400)
  })

  it('reads no body but a form: anyone may post to the page, and JSON was parsed up to the body limit first', async () => {
    const deep = `${'['.repeat(200)}${']'.repeat(200)}`
    for (const url of [`${s.url}/unified/integration/key/${'A'.repeat(43)}`, await keyPage()]) {
      for (const body of ['{not json', deep, JSON.stringify({ token: DEFAULT_PERSONAL_API_KEY })]) {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        const text = await res.body.text()
        // A 400 for what the JSON was ("not valid JSON", "nested more than 64 levels") would show it was parsed.
        expect(res.statusCode, text).toBe(415)
        expect(res.headers['content-type']).toMatch(/^text\/html/)
        expect(text).toContain('form')
      }
    }
  })

  it('refuses an expired state, with the failure redirect', async () => {
    const url = await keyPage()
    await s.services.db.updateTable('auth_states').set({ expires_at: '2000-01-01T00:00:00.000Z' }).execute()
    const res = await browserPost(url, { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url })
    expect(res.status).toBe(303)
    expect(new URL(res.location!).searchParams.get('error_code')).toBe('state_expired')
  })

  it('is not an open redirect: targets outside the allowed origins are refused before anything starts', async () => {
    for (const target of [
      'https://evil.example.net/x',
      'https://app.example.com.evil.net/',
      'javascript:alert(1)',
    ]) {
      const res = await browserGet(authPath({ success_redirect: target }))
      expect(res.status).toBe(400)
      expect(res.text).toContain('success_redirect')
      // Whoever holds the link learns that the target is refused, not which origins the workspace allows.
      // (An allowed origin is the APP's own, not one that merely starts with it.)
      expect(res.text).not.toMatch(/https:\/\/app\.example\.com(?!\.)/)
      const redirected = await browserGet(authPath({ failure_redirect: target, redirect: '1' }))
      expect(redirected.status).toBe(400)
      expect(redirected.location).toBeUndefined()
      expect(redirected.headers['content-type']).toMatch(/text\/html/)
    }
    // The aliases other clients send are checked the same way.
    expect((await browserGet(authPath({ success_url: 'https://evil.example.net/' }))).status).toBe(400)
  })

  it('sends a browser with a bad request to an allowed failure redirect, saying why', async () => {
    const res = await browserGet(
      authPath({ failure_redirect: `${APP}/failed`, scopes: 'hris_employee_read', redirect: '1' }),
    )
    expect(res.status).toBe(302)
    const back = new URL(res.location!)
    expect(back.searchParams.get('error')).toContain('hris_employee_read')
  })

  it("never puts a link's own sentence on the failure redirect or the page a browser is sent to", async () => {
    // Anyone can make such a link to the workspace's allowed failure redirect: what it gives as an
    // integration type or a scope was repeated in `error`, and on Unigate's page under "Secured by Unigate".
    const sentence = 'Your account is locked. Call +1 555 0100 to unlock it'
    const links = [
      `${s.url}/unified/integration/auth/${s.workspaceId}/${encodeURIComponent(sentence)}?${new URLSearchParams({ failure_redirect: `${APP}/failed`, redirect: '1' })}`,
      authPath({ failure_redirect: `${APP}/failed`, scopes: sentence, redirect: '1' }),
      authPath({ failure_redirect: `${APP}/failed`, success_redirect: sentence, redirect: '1' }),
    ]
    for (const link of links) {
      const res = await browserGet(link)
      expect(res.status).toBe(302)
      const back = new URL(res.location!)
      expect(back.origin + back.pathname).toBe(`${APP}/failed`)
      expect(back.searchParams.get('error_code')).toBe('invalid_request')
      expect(back.searchParams.get('error')).toContain('without redirect=1')
      expect(res.location).not.toMatch(/locked/i)
    }
    const page = await browserGet(
      `${s.url}/unified/integration/auth/${encodeURIComponent(sentence)}/posthog?redirect=1`,
    )
    expect(page.status).toBe(404)
    expect(page.text).toContain('This connection link is not valid')
    expect(page.text).not.toMatch(/locked/i)
    // Opened without redirect=1, the link's maker reads the refusal in full.
    const plain = await browserGet(authPath({ scopes: sentence }))
    expect(plain.status).toBe(400)
    expect(plain.text).toContain(sentence)
    // A refused redirect target is named by its origin, lowercased and without its path: not as given, and
    // still the link's words.
    const shouted = await browserGet(
      authPath({
        failure_redirect: `${APP}/failed`,
        success_redirect: 'HTTPS://Your-Account-Is-Locked.example/call-now',
        redirect: '1',
      }),
    )
    expect(new URL(shouted.location!).searchParams.get('error')).toContain('without redirect=1')
    expect(shouted.location).not.toMatch(/locked/i)
  })

  it('still says why when only short values of the link appear in the refusal', async () => {
    // `1` (redirect=1) or `a` is in nearly any message: matched, every refusal was told in fixed words.
    const res = await browserGet(
      authPath({
        failure_redirect: `${APP}/failed`,
        scopes: 'hris_employee_read',
        redirect: '1',
        state: 'a',
      }),
    )
    expect(res.status).toBe(302)
    expect(new URL(res.location!).searchParams.get('error')).toContain('hris_employee_read')
  })

  it('answers 404 for an unknown workspace or integration, and 400 naming an unknown parameter', async () => {
    expect((await browserGet(`${s.url}/unified/integration/auth/ws_nope/posthog`)).status).toBe(404)
    expect((await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/nope`)).status).toBe(404)
    const unknown = await browserGet(authPath({ colour: 'red' }))
    expect(unknown.status).toBe(400)
    expect(unknown.text).toContain("'colour'")
  })

  it('stores allowed origins normalized and refuses ones with a path', async () => {
    const bad = await s.api<{ message: string }>('PATCH', '/unified/workspace', {
      allowed_redirect_origins: ['https://app.example.com/callback'],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('https://app.example.com')
  })
})
