import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PERSONAL_API_KEY, type PosthogEmulator } from '../emulators/posthog/index.js'
import { buildApp } from '../src/http/app.js'
import { createServices, type Services } from '../src/services.js'
import { changeChannel } from '../src/store/change-notifier.js'
import { testConfig } from './support/config.js'
import { startPosthog } from './support/posthog.js'
import { callApi } from './support/server-process.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'

/** Long enough that only a notification, never the caches' own expiry, can explain what the tests see. */
const FALLBACK_MS = 60_000

interface Instance {
  readonly url: string
  readonly services: Services
  close(): Promise<void>
}

/** One Unigate server (as another process would run it) on the shared PostgreSQL schema. */
async function startInstance(schema: string, masterKey: Buffer): Promise<Instance> {
  const config = testConfig('postgres', { masterKey, keyRevocationRefreshMs: FALLBACK_MS })
  const services = await createServices(config, { pgSchema: schema })
  const app: FastifyInstance = await buildApp(services, { logger: false })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    url,
    services,
    async close() {
      await app.close()
      await services.close()
    },
  }
}

/** Polls until the condition holds; fails naming what never happened. */
async function eventually(what: string, condition: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * Two server instances on one PostgreSQL schema, each with its own caches and its own listener, with the
 * caches' expiry and the revocation reload set to a minute: a change made through one is refused or seen
 * by the other as soon as PostgreSQL delivers the notification.
 */
describe.skipIf(!storeKinds().includes('postgres'))('changes made in one process, on PostgreSQL', () => {
  const schema = uniqueSchema()
  const masterKey = randomBytes(32)
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  let emulator: PosthogEmulator
  let a: Instance
  let b: Instance
  let workspaceId: string
  let apiKey: string

  const listeners = async () =>
    (
      await admin.query<{ pid: number }>(
        'select pid from pg_stat_activity where datname = current_database() and query = $1',
        [`LISTEN "${changeChannel(schema)}"`],
      )
    ).rows.map((r) => r.pid)

  const connect = async (permissions?: string[]) => {
    const res = await callApi<{ id: string }>(a.url, apiKey, 'POST', '/unified/connection', {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
      ...(permissions ? { permissions } : {}),
    })
    expect(res.status, res.text).toBe(200)
    return res.body.id
  }

  beforeAll(async () => {
    await admin.connect()
    emulator = await startPosthog()
    a = await startInstance(schema, masterKey)
    b = await startInstance(schema, masterKey)
    const { workspace } = await a.services.workspaces.create('cross-process')
    workspaceId = workspace.id
    apiKey = (await a.services.apiKeys.issue(workspaceId)).apiKey
  }, 60_000)

  afterAll(async () => {
    await a?.close()
    await b?.close()
    await emulator?.close()
    await admin.end()
    await dropSchema(schema)
  })

  it('refuses a key revoked in the other process', async () => {
    const { apiKey: key, keyId } = await a.services.apiKeys.issue(workspaceId)
    expect((await callApi(b.url, key, 'GET', '/unified/workspace')).status).toBe(200)
    await a.services.apiKeys.revoke(keyId)
    await eventually('the other process refusing the revoked key', async () => {
      const res = await callApi<{ message: string }>(b.url, key, 'GET', '/unified/workspace')
      return res.status === 401 && res.body.message === 'invalid or revoked API key'
    })
  })

  it('answers 404 for a connection removed through the other process', async () => {
    const id = await connect()
    expect((await callApi(b.url, apiKey, 'GET', `/analytics/${id}/event?limit=1`)).status).toBe(200)
    expect((await callApi(a.url, apiKey, 'DELETE', `/unified/connection/${id}`)).status).toBe(200)
    await eventually('the other process answering 404 for the removed connection', async () => {
      const res = await callApi<{ statusCode: number }>(
        b.url,
        apiKey,
        'GET',
        `/analytics/${id}/event?limit=1`,
      )
      return res.status === 404 && res.body.statusCode === 404
    })
  })

  it('answers 403 for an operation whose permission was withdrawn through the other process', async () => {
    const id = await connect(['analytics_event_read', 'analytics_visitor_read'])
    expect((await callApi(b.url, apiKey, 'GET', `/analytics/${id}/event?limit=1`)).status).toBe(200)
    const patched = await callApi(a.url, apiKey, 'PATCH', `/unified/connection/${id}`, {
      permissions: ['analytics_visitor_read'],
    })
    expect(patched.status, patched.text).toBe(200)
    await eventually('the other process refusing the withdrawn permission', async () => {
      const res = await callApi<{ message: string }>(b.url, apiKey, 'GET', `/analytics/${id}/event?limit=1`)
      return res.status === 403 && res.body.message.includes('analytics_event_read')
    })
    expect((await callApi(b.url, apiKey, 'GET', `/analytics/${id}/visitor?limit=1`)).status).toBe(200)
  })

  it('applies a workspace setting changed through the other process', async () => {
    const id = await connect()
    const visitors = async () => {
      const res = await callApi<Record<string, unknown>[]>(
        b.url,
        apiKey,
        'GET',
        `/analytics/${id}/visitor?limit=3`,
      )
      expect(res.status, res.text).toBe(200)
      return res.body
    }
    expect((await visitors()).some((v) => 'total_events' in v)).toBe(false)
    const patched = await callApi(a.url, apiKey, 'PATCH', '/unified/workspace', { slow_fields_opt_in: true })
    expect(patched.status, patched.text).toBe(200)
    await eventually('the other process fetching slow fields for the opted-in workspace', async () =>
      (await visitors()).every((v) => 'total_events' in v),
    )
  })

  it('hears changes again after its listening connection is cut', async () => {
    const before = await listeners()
    expect(before).toHaveLength(2)
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [before])
    const { apiKey: key, keyId } = await a.services.apiKeys.issue(workspaceId)
    expect((await callApi(b.url, key, 'GET', '/unified/workspace')).status).toBe(200)
    // Revoked at once, whether or not the listeners are back yet: a change announced while one was down is
    // made up for when it reconnects.
    await a.services.apiKeys.revoke(keyId)
    await eventually('the other process refusing the key revoked around the reconnect', async () => {
      return (await callApi(b.url, key, 'GET', '/unified/workspace')).status === 401
    })
    await eventually('both listeners reconnecting', async () => {
      const now = await listeners()
      return now.length === 2 && now.every((pid) => !before.includes(pid))
    })
  })

  it('closes its listening connection when the server closes', async () => {
    const c = await startInstance(schema, masterKey)
    expect(await listeners()).toHaveLength(3)
    await c.close()
    await eventually(
      'the closed server leaving its LISTEN connection',
      async () => (await listeners()).length === 2,
    )
  })
})
