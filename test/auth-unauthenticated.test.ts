import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PERSONAL_API_KEY, type PosthogEmulator } from '../emulators/posthog/index.js'
import { MAX_KEY_ATTEMPTS } from '../src/authorization/key-page.js'
import { type AuthServer, browserGet, browserPost, freePort, startAuthServer } from './support/auth-server.js'
import { startPosthog } from './support/posthog.js'
import { type Recorder, startRecorder } from './support/recorder.js'
import { storeKinds } from './support/stores.js'

const APP = 'https://app.example.com'
const INTERNAL_BODY = `internal-service-answer ${'x'.repeat(40)} root:x:0:0`

/** The page with everything that names this request (its token, the typed address) taken out. */
const pageText = (html: string) =>
  html.replace(/\/unified\/integration\/key\/[A-Za-z0-9_-]+/g, '<link>').replace(/value="[^"]*"/g, '')

describe.each(storeKinds())('the unauthenticated authorization endpoints on %s', (store) => {
  let s: AuthServer
  let posthog: PosthogEmulator
  let failing: Recorder
  let hanging: Recorder
  let answering: Recorder
  let webPage: Recorder
  let emptyObject: Recorder
  beforeAll(async () => {
    answering = await startRecorder({ status: 200, body: 'null' })
    webPage = await startRecorder({ status: 200, body: '<html>intranet wiki</html>' })
    // JSON, but not PostHog's `@me`: an internal service answering `{}` must not pass for PostHog.
    emptyObject = await startRecorder({ status: 200, body: '{}' })
    posthog = await startPosthog()
    failing = await startRecorder({ status: 500, body: INTERNAL_BODY })
    hanging = await startRecorder({ status: 'hang' })
    s = await startAuthServer(store, { providerTimeoutMs: 300, providerMaxRetries: 0 })
    await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [APP] })
  })
  afterAll(async () => {
    await s?.close()
    await Promise.all([
      posthog?.close(),
      failing?.close(),
      hanging?.close(),
      answering?.close(),
      webPage?.close(),
      emptyObject?.close(),
    ])
  })

  const authPath = (query: Record<string, string> = {}, workspace = s.workspaceId) =>
    `${s.url}/unified/integration/auth/${workspace}/posthog?${new URLSearchParams({
      failure_redirect: `${APP}/failed`,
      ...query,
    })}`

  async function keyPage(): Promise<string> {
    const res = await browserGet(authPath())
    expect(res.status).toBe(200)
    return res.text
  }

  it('says only "could not verify", never what an address typed on the page answered, nor its status', async () => {
    const res = await browserPost(await keyPage(), { token: 'phx_x', api_url: failing.url })
    expect(res.status).toBe(400)
    expect(res.text).toContain('PostHog could not verify these credentials. Check them and try again.')
    expect(res.text).not.toContain('HTTP 500')
    expect(res.text).not.toContain('500')
    expect(res.text).not.toContain('internal-service-answer')
    expect(res.text).not.toContain('root:x')
    expect(failing.requests.length).toBeGreaterThan(0)
  })

  it('cannot tell a refused port from a timeout, an unknown host, an error or a 2xx of another shape', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`
    const pages: string[] = []
    for (const api_url of [
      closed,
      hanging.url,
      'http://unigate-test-host.invalid',
      failing.url,
      answering.url,
      webPage.url,
      emptyObject.url,
      posthog.url,
    ]) {
      const res = await browserPost(await keyPage(), { token: 'phx_x', api_url })
      expect(res.status, api_url).toBe(400)
      pages.push(pageText(res.text))
    }
    expect(pages[0]).toContain('PostHog could not verify these credentials. Check them')
    expect(new Set(pages).size).toBe(1)
  })

  it('counts failed attempts of every kind, provider failures included', async () => {
    const url = await keyPage()
    const tries = [
      { token: 'phx_x', api_url: answering.url },
      { token: 'phx_x', api_url: emptyObject.url },
      { token: 'phx_x', api_url: failing.url },
      { token: 'phx_x', api_url: hanging.url },
      { token: 'phx_x', api_url: 'not a url' },
      { token: 'phx_wrong', api_url: posthog.url },
    ]
    for (let i = 0; i < MAX_KEY_ATTEMPTS - 1; i++) {
      expect((await browserPost(url, tries[i % tries.length]!)).status).toBe(400)
    }
    const last = await browserPost(url, { token: 'phx_x', api_url: failing.url })
    expect(last.status).toBe(303)
    expect(new URL(last.location!).searchParams.get('error_code')).toBe('too_many_attempts')
    // Spent: even the right key no longer connects through this link.
    const after = await browserPost(url, { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url })
    expect(new URL(after.location!).searchParams.get('error_code')).toBe('state_used')
  })

  it('names a malformed or refused address on the form without sending anything', async () => {
    failing.requests.length = 0
    const bad = await browserPost(await keyPage(), { token: 'phx_x', api_url: 'not a url' })
    expect(bad.status).toBe(400)
    expect(bad.text).toContain('API URL: &#39;not a url&#39; is not a URL')
    const metadata = await browserPost(await keyPage(), {
      token: 'phx_x',
      api_url: 'http://169.254.169.254/latest/meta-data',
    })
    expect(metadata.status).toBe(400)
    expect(metadata.text).toContain('API URL: 169.254.169.254 is in a link-local range')
  })

  it('refuses oversized parameters with 400 naming the parameter and its limit', async () => {
    for (const [name, size, limit] of [
      ['state', 12_000, 1024],
      ['external_xref', 300, 256],
      ['success_redirect', 3000, 2048],
      ['lang', 100, 64],
    ] as const) {
      const value = name === 'success_redirect' ? `${APP}/${'a'.repeat(size)}` : 'a'.repeat(size)
      const res = await browserGet(authPath({ [name]: value }))
      expect(res.status, name).toBe(400)
      expect(res.text, name).toContain(name)
      expect(res.text, name).toContain(String(limit))
    }
    const scopes = new URLSearchParams()
    for (let i = 0; i < 65; i++) scopes.append('scopes', 'analytics_event_read')
    const many = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/posthog?${scopes}`)
    expect(many.status).toBe(400)
    expect(many.text).toContain('scopes')
    expect(many.text).toContain('64')
    // At the limit is fine.
    expect((await browserGet(authPath({ state: 'a'.repeat(1024) }))).status).toBe(200)
  })

  it('keeps a bounded number of pending authorizations per workspace, and drops expired ones', async () => {
    const small = await startAuthServer(store, {
      authorization: {
        stateTtlMs: 600_000,
        refreshMarginMs: 60_000,
        refreshWaitMs: 15_000,
        rateLimitPerMinute: 10_000,
        workspaceRateLimitPerMinute: 10_000,
        maxPendingPerWorkspace: 5,
      },
    })
    try {
      const states = () =>
        small.services.db
          .selectFrom('auth_states')
          .select(['id', 'expires_at'])
          .where('workspace_id', '=', small.workspaceId)
          .execute()
      const path = `${small.url}/unified/integration/auth/${small.workspaceId}/posthog`
      const first = (await browserGet(path)).text
      for (let i = 0; i < 11; i++) expect((await browserGet(`${path}?state=s${i}`)).status).toBe(200)
      expect(await states()).toHaveLength(5)
      // The oldest made room: its link is no longer known.
      expect((await browserGet(first)).status).toBe(400)

      await small.services.db
        .updateTable('auth_states')
        .set({ expires_at: '2000-01-01T00:00:00.000Z' })
        .execute()
      expect((await browserGet(path)).status).toBe(200)
      const left = await states()
      expect(left).toHaveLength(1)
      expect(left[0]!.expires_at > new Date().toISOString()).toBe(true)
    } finally {
      await small.close()
    }
  })

  it('answers 429 with retry-after past the limit per client address, and per workspace', async () => {
    const limited = await startAuthServer(store, {
      authorization: {
        stateTtlMs: 600_000,
        refreshMarginMs: 60_000,
        refreshWaitMs: 15_000,
        rateLimitPerMinute: 3,
        workspaceRateLimitPerMinute: 5,
        maxPendingPerWorkspace: 1000,
      },
    })
    try {
      const path = `${limited.url}/unified/integration/auth/${limited.workspaceId}/posthog`
      const statuses: number[] = []
      let link = ''
      for (let i = 0; i < 5; i++) {
        const res = await browserGet(path)
        statuses.push(res.status)
        if (res.status === 200) link = res.text
        else {
          expect(res.headers['retry-after']).toMatch(/^\d+$/)
          expect(JSON.parse(res.text)).toMatchObject({ statusCode: 429 })
        }
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429])
      const rows = await limited.services.db.selectFrom('auth_states').select('id').execute()
      expect(rows).toHaveLength(3)

      // The key page has its own budget per address.
      const pages = []
      for (let i = 0; i < 4; i++) pages.push(await browserGet(link))
      expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 429])
      expect(pages[3]!.headers['retry-after']).toMatch(/^\d+$/)

      // Per workspace, whoever asks: five a minute, of which the three links above took three.
      const ws = limited.services.authorization.flow
      const started = await Promise.allSettled(
        [1, 2, 3].map(() =>
          ws.start(limited.workspaceId, 'posthog', { environment: 'Production', redirect: false }),
        ),
      )
      // The three run at once: which one finds the bucket empty depends on when each one's store reads end.
      expect(started.map((r) => r.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected'])
      const refused = started.find((r): r is PromiseRejectedResult => r.status === 'rejected')
      expect(refused?.reason).toMatchObject({ statusCode: 429 })
    } finally {
      await limited.close()
    }
  })
})
