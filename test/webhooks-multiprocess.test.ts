import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startUmamiEmulator, type UmamiEmulator } from '../emulators/umami/index.js'
import {
  callApi,
  killAllServerProcesses,
  type ServerProcess,
  startServerProcess,
} from './support/server-process.js'
import { scratchDatabase, storeKinds } from './support/stores.js'
import { connectUmami, workspaceIn } from './support/umami-webhooks.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

const PROCESSES = 3
const WEBHOOKS = 200
/** The length of a "minute" for these processes: interval 1 means a check every second. */
const MINUTE_MS = 1000
const INTERVALS = 5

interface Run {
  webhook_id: string
  due_at: string
  started_at: string
  finished_at: string
  runner: string
  outcome: string
}

/**
 * Three server processes on one PostgreSQL database share 200 virtual webhooks through pg-boss: every
 * webhook is checked, never by two processes at once, never twice in one interval, and the work is spread.
 */
describe.skipIf(!storeKinds().includes('postgres'))('three server processes on PostgreSQL', () => {
  const database = scratchDatabase('unigate_mp')
  let databaseUrl: string
  let emulator: UmamiEmulator
  let receiver: WebhookReceiver
  let servers: ServerProcess[] = []
  let apiKey: string

  beforeAll(async () => {
    databaseUrl = await database.create()
    emulator = await startUmamiEmulator({ websites: 3, sessions: 0 })
    const env = {
      DATABASE_URL: databaseUrl,
      UNIGATE_MASTER_KEY: randomBytes(32).toString('base64'),
      UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
      // 200 webhooks share one connection and a minute lasts a second here: sixty times the provider calls
      // per connection a real minute would ask for, more than the default per-connection limit serves.
      UNIGATE_PROVIDER_CONNECTION_CONCURRENCY: '64',
      UNIGATE_WEBHOOK_MINUTE_MS: String(MINUTE_MS),
      UNIGATE_WEBHOOK_TICK_MS: '100',
      UNIGATE_WEBHOOK_LEASE_MS: '5000',
    }
    const made = await workspaceIn(env, 'multi')
    apiKey = made.apiKey
    receiver = await startWebhookReceiver(made.secret)
    servers = await Promise.all(Array.from({ length: PROCESSES }, () => startServerProcess(env, 60_000)))
  }, 90_000)

  afterAll(async () => {
    await killAllServerProcesses()
    await receiver?.close()
    await emulator?.close()
    await database.drop()
  })

  it('runs each webhook check once per interval, one process at a time, spread over the processes', async () => {
    const first = servers[0]!
    const connectionId = await connectUmami(first.url, apiKey, emulator.url)
    const ids: string[] = []
    // Created 20 at a time, spread over the processes: any of them may serve the API.
    for (let batch = 0; batch < WEBHOOKS; batch += 20) {
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          callApi<{ id: string }>(servers[(batch + i) % PROCESSES]!.url, apiKey, 'POST', '/unified/webhook', {
            connection_id: connectionId,
            object_type: 'analytics_property',
            event: 'updated',
            hook_url: receiver.url,
            interval: 1,
          }),
        ),
      )
      for (const res of created) {
        expect(res.status, res.text).toBe(200)
        ids.push(res.body.id)
      }
    }
    await new Promise((r) => setTimeout(r, INTERVALS * MINUTE_MS))
    await Promise.all(servers.map((s) => s.kill('SIGTERM')))

    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    const { rows } = await db.query<Run>('SELECT * FROM webhook_runs ORDER BY webhook_id, started_at')
    await db.end()
    const byWebhook = new Map<string, Run[]>(ids.map((id) => [id, []]))
    for (const run of rows) byWebhook.get(run.webhook_id)?.push(run)

    for (const [id, runs] of byWebhook) {
      expect(runs.length, `checks of ${id}`).toBeGreaterThanOrEqual(2)
      expect(
        runs.every((r) => r.outcome === 'ok'),
        JSON.stringify(runs),
      ).toBe(true)
      expect(new Set(runs.map((r) => r.due_at)).size, `${id}: one check per due time`).toBe(runs.length)
      for (let i = 1; i < runs.length; i++) {
        const previous = runs[i - 1]!
        const run = runs[i]!
        // Never two at once: a check starts after the previous one finished...
        expect(run.started_at >= previous.finished_at, `${id}: overlapping checks`).toBe(true)
        // ...and never twice in one interval.
        expect(Date.parse(run.started_at) - Date.parse(previous.started_at)).toBeGreaterThanOrEqual(MINUTE_MS)
        expect(run.started_at >= run.due_at).toBe(true)
      }
    }
    // The work was shared: every process ran checks.
    expect(new Set(rows.map((r) => r.runner.split(':')[1])).size).toBe(PROCESSES)
  }, 120_000)
})
