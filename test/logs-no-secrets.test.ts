import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MATOMO_TOKEN, type MatomoEmulator, startMatomoEmulator } from '../emulators/matomo/index.js'
import {
  DEFAULT_PERSONAL_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../emulators/posthog/index.js'
import { buildApp } from '../src/http/app.js'
import { createServices, type Services } from '../src/services.js'
import { type AuthServer, browserGet, browserPost, freePort } from './support/auth-server.js'
import { testConfig } from './support/config.js'
import {
  CLIENT_SECRET,
  configureGoogleApp,
  decide,
  GA4,
  type GoogleSetup,
  startGoogle,
} from './support/google-oauth.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

const APP = 'https://app.example.com'

/**
 * Every flow that handles a secret, run with the logs at trace level into memory; then every log line is
 * searched for every secret the run used.
 */
describe.each(storeKinds())('no secret reaches the logs, on %s', (store) => {
  const lines: string[] = []
  let services: Services
  let s: AuthServer
  let close: () => Promise<void>
  let posthog: PosthogEmulator
  let matomo: MatomoEmulator
  let g: GoogleSetup
  let receiver: WebhookReceiver
  const secrets: Record<string, string> = {}

  beforeAll(async () => {
    posthog = await startPosthogEmulator({ size: { events: 20 } })
    matomo = await startMatomoEmulator({ seed: 1 })
    g = await startGoogle()
    const stream = new PassThrough()
    stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
    const port = await freePort()
    const url = `http://127.0.0.1:${port}`
    const pgSchema = store === 'postgres' ? uniqueSchema() : undefined
    services = await createServices(testConfig(store, { port, publicUrl: url, logLevel: 'trace' }), {
      logStream: stream,
      ...(pgSchema ? { pgSchema } : {}),
    })
    const app = await buildApp(services, { logStream: stream })
    await app.listen({ host: '127.0.0.1', port })
    const { workspace, secret } = await services.workspaces.create('logs')
    const { apiKey } = await services.apiKeys.issue(workspace.id)
    receiver = await startWebhookReceiver(secret)
    Object.assign(secrets, { apiKey, workspaceSecret: secret, clientSecret: CLIENT_SECRET })
    const api = async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      const text = await res.text()
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T }
    }
    s = { url, services, workspaceId: workspace.id, apiKey, secret, api, close: async () => {} }
    close = async () => {
      await app.close()
      await services.close()
      if (pgSchema) await dropSchema(pgSchema)
    }
  })
  afterAll(async () => {
    await close?.()
    await Promise.all([posthog?.close(), matomo?.close(), g?.close(), receiver?.close()])
  })

  it('runs every flow that handles a secret, and logs none of them', async () => {
    expect((await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [APP] })).status).toBe(200)

    // A connection from a held key.
    const conn = await s.api<{ id: string }>('POST', '/unified/connection', {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url },
    })
    expect(conn.status).toBe(200)
    secrets.posthogKey = DEFAULT_PERSONAL_API_KEY

    // The hosted key page: a mistyped key, then the right one.
    const link = await browserGet(
      `${s.url}/unified/integration/auth/${s.workspaceId}/posthog?success_redirect=${encodeURIComponent(`${APP}/ok`)}`,
    )
    expect(link.status).toBe(200)
    secrets.keyPageToken = link.text.split('/').pop()!
    expect((await browserGet(link.text)).status).toBe(200)
    secrets.typo = 'phx_typo_that_is_still_a_secret'
    expect((await browserPost(link.text, { token: secrets.typo, api_url: posthog.url })).status).toBe(400)
    expect(
      (await browserPost(link.text, { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url })).status,
    ).toBe(303)

    // OAuth with the emulated Google, then a refresh.
    await configureGoogleApp(s, g)
    const start = await browserGet(`${s.url}/unified/integration/auth/${s.workspaceId}/${GA4}`)
    const callback = new URL(await decide(start.text, 'allow'))
    secrets.code = callback.searchParams.get('code')!
    secrets.oauthState = callback.searchParams.get('state')!
    const done = await browserGet(callback.toString())
    expect(done.status).toBe(200)
    const oauthId = /cn_na_[A-Za-z0-9_-]+/.exec(done.text)![0]
    const issued = (await services.connectionStore.get(s.workspaceId, oauthId))!.credentials
    secrets.accessToken = issued.access_token!
    secrets.refreshToken = issued.refresh_token!
    g.ga4.authority.advance(3600)
    expect((await s.api('GET', `/analytics/${oauthId}/property`)).status).toBe(200)
    secrets.refreshedToken = (await services.connectionStore.get(s.workspaceId, oauthId))!.credentials
      .access_token!
    expect(secrets.refreshedToken).not.toBe(secrets.accessToken)

    // Passthrough with the provider's token in the query, as one encoded segment and with literal slashes.
    const matomoConn = await s.api<{ id: string }>('POST', '/unified/connection', {
      integration_type: 'matomo',
      auth: { token_auth: DEFAULT_MATOMO_TOKEN, api_url: matomo.url },
    })
    expect(matomoConn.status).toBe(200)
    secrets.matomoToken = DEFAULT_MATOMO_TOKEN
    const query = `module=API&method=API.getMatomoVersion&format=JSON&token_auth=${DEFAULT_MATOMO_TOKEN}`
    await s.api('GET', `/passthrough/${matomoConn.body.id}/${encodeURIComponent(`/index.php?${query}`)}`)
    await s.api('GET', `/passthrough/${matomoConn.body.id}/index.php?${query}`)

    // A webhook whose address carries its own secret, pushed by PostHog and delivered.
    secrets.hookSecret = 'hook-secret-in-the-query-1234'
    const hook = await s.api<{ id: string }>('POST', '/unified/webhook', {
      connection_id: conn.body.id,
      object_type: 'analytics_event',
      event: 'created',
      hook_url: `${receiver.url}/hook?key=${secrets.hookSecret}`,
    })
    expect(hook.status).toBe(200)
    const created = await s.api('POST', `/analytics/${conn.body.id}/event`, {
      name: 'signed_up',
      visitor_id: 'u1',
    })
    expect(created.status).toBe(200)
    await receiver.waitFor(() => receiver.accepted(hook.body.id).length > 0, 15_000, 'the delivery')
    expect((await s.api('DELETE', `/unified/webhook/${hook.body.id}`)).status).toBe(200)
    expect((await s.api('DELETE', `/unified/connection/${oauthId}`)).status).toBe(200)

    // The logs say what happened, with the paths in their redacted form...
    await new Promise((r) => setTimeout(r, 50))
    const log = lines.join('\n')
    expect(lines.length).toBeGreaterThan(20)
    expect(log).toContain('/unified/integration/key/<redacted>')
    expect(log).toContain(`/passthrough/${matomoConn.body.id}/%2Findex.php"`)
    expect(log).toContain('/unified/integration/oauth/callback"')
    // ...and none of the secrets.
    for (const [name, value] of Object.entries(secrets)) {
      expect(value.length, name).toBeGreaterThan(8)
      const found = lines.find((line) => line.includes(value))
      expect(found, `${name} appears in a log line`).toBeUndefined()
    }
  })
})
