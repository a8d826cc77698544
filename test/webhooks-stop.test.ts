import { randomBytes } from 'node:crypto'
import { PassThrough } from 'node:stream'
import pg from 'pg'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { startUmamiEmulator, type UmamiEmulator } from '../emulators/umami/index.js'
import { type Config, loadConfig } from '../src/config.js'
import { buildApp } from '../src/http/app.js'
import { createServices, type Services } from '../src/services.js'
import { testConfig } from './support/config.js'
import { killAllServerProcesses, startServerProcess } from './support/server-process.js'
import { dropSchema, scratchDatabase, storeKinds, uniqueSchema } from './support/stores.js'
import { backfillingWebhook, connectUmami, workspaceIn } from './support/umami-webhooks.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

/** One server "process": its own services, job runner and HTTP listener on the shared store. */
interface Process {
  readonly url: string
  readonly services: Services
  /** Background log lines at error level or above. */
  errors(): string[]
  close(): Promise<void>
}

async function startProcess(config: Config, pgSchema: string | undefined): Promise<Process> {
  const logStream = new PassThrough()
  const lines: string[] = []
  logStream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
  const services = await createServices(config, { ...(pgSchema ? { pgSchema } : {}), logStream })
  const app = await buildApp(services)
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    url,
    services,
    errors: () => lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50),
    async close() {
      await app.close()
      await services.close()
    },
  }
}

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/**
 * Stopping a server (a deploy restarting it) while it delivers: running deliveries finish and give their
 * lease back before the database closes; one that outlives the stop timeout is abandoned without being
 * recorded as an attempt, its lease released, so the next process sends it at once (at least once).
 */
describe.each(storeKinds())('stopping a server on %s while it delivers', (store) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  /** A store, a workspace and a receiver that holds deliveries as `hold` says; A is started. */
  async function setUp(
    overrides: Partial<Config['webhooks']>,
    hold: (n: number) => Promise<void> | undefined,
  ) {
    const base = testConfig(store)
    const config: Config = {
      ...base,
      // A lease never expires during a test: only a released one lets another process deliver.
      webhooks: { ...base.webhooks, leaseMs: 600_000, ...overrides },
    }
    const pgSchema = store === 'postgres' ? uniqueSchema() : undefined
    if (pgSchema) cleanups.push(() => dropSchema(pgSchema).then(() => dropSchema(`${pgSchema}_jobs`)))
    const emulator: UmamiEmulator = await startUmamiEmulator({ websites: 2, sessions: 0 })
    cleanups.push(() => emulator.close())
    const a = await startProcess(config, pgSchema)
    let closedA = false
    cleanups.push(async () => {
      if (!closedA) await a.close()
    })
    const { workspace, secret } = await a.services.workspaces.create('stop')
    const { apiKey } = await a.services.apiKeys.issue(workspace.id)
    let arrived = 0
    const receiver: WebhookReceiver = await startWebhookReceiver(secret, { hold: () => hold(++arrived) })
    cleanups.push(() => receiver.close())
    // A backfill of one website per page: three deliveries (two pages and INITIAL-COMPLETE), in order.
    const webhookId = await backfillingWebhook(a.url, apiKey, {
      connection_id: await connectUmami(a.url, apiKey, emulator.url),
      hook_url: receiver.url,
      page_max_limit: 1,
    })
    const stopA = async () => {
      closedA = true
      await a.close()
    }
    return { config, pgSchema, a, stopA, receiver, webhookId }
  }

  /** The webhook's delivery lease and its deliveries, read by a fresh process that runs no jobs. */
  async function stored(config: Config, pgSchema: string | undefined, webhookId: string) {
    const services = await createServices(config, { ...(pgSchema ? { pgSchema } : {}), background: false })
    try {
      const webhook = await services.db
        .selectFrom('webhooks')
        .select(['delivery_lease', 'delivery_lease_until'])
        .where('id', '=', webhookId)
        .executeTakeFirstOrThrow()
      const deliveries = await services.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status', 'attempts'])
        .where('webhook_id', '=', webhookId)
        .orderBy('position')
        .execute()
      return { lease: webhook.delivery_lease, deliveries }
    } finally {
      await services.close()
    }
  }

  /** Connections pg-boss still holds for this schema (none once its process stopped). */
  async function jobConnections(pgSchema: string | undefined): Promise<number> {
    if (!pgSchema) return 0
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await client.connect()
    try {
      const { rows } = await client.query<{ n: string }>(
        'select count(*) as n from pg_stat_activity where application_name = $1',
        [`pgboss ${pgSchema}_jobs`.slice(0, 63)],
      )
      return Number(rows[0]?.n)
    } finally {
      await client.end()
    }
  }

  it('lets the delivery in flight finish, leaves the backlog pending, releases the lease, logs nothing', async () => {
    const first = deferred()
    const release = deferred()
    const s = await setUp({}, (n) => {
      if (n !== 1) return undefined
      first.resolve()
      return release.promise
    })
    await first.promise
    const stopping = s.stopA()
    // The stop has begun (and waits) before the receiver answers.
    await new Promise((r) => setTimeout(r, 300))
    release.resolve()
    await stopping

    const after = await stored(s.config, s.pgSchema, s.webhookId)
    expect(after.lease).toBeNull()
    expect(s.receiver.deliveries.map((d) => d.answered)).toEqual([200])
    const sentId = s.receiver.deliveries[0]!.deliveryId
    // The accepted delivery is removed; the rest of the backfill waits for the next process, untouched.
    expect(after.deliveries.map((d) => d.id)).not.toContain(sentId)
    expect(after.deliveries.length).toBeGreaterThan(0)
    for (const d of after.deliveries) expect(d).toMatchObject({ status: 'pending', attempts: 0 })
    expect(s.a.errors()).toEqual([])
    expect(await jobConnections(s.pgSchema)).toBe(0)

    const b = await startProcess(s.config, s.pgSchema)
    cleanups.push(() => b.close())
    await s.receiver.waitFor(
      () => s.receiver.accepted().some((d) => d.type === 'INITIAL-COMPLETE'),
      30_000,
      'the backlog from the next process',
    )
    expect(s.receiver.deliveries.map((d) => d.deliveryId)).toEqual([
      sentId,
      ...after.deliveries.map((d) => d.id),
    ])
    expect(b.errors()).toEqual([])
  }, 60_000)

  it('abandons a stuck delivery at the stop timeout; the next process delivers it at once', async () => {
    const arrivedStuck = deferred()
    const unstick = deferred()
    cleanups.push(async () => unstick.resolve())
    const s = await setUp(
      // The receiver never answers the first attempt; the sender would wait a minute for it.
      { stopTimeoutMs: 1_000, deliveryTimeoutMs: 60_000 },
      (n) => {
        if (n !== 1) return undefined
        arrivedStuck.resolve()
        return unstick.promise
      },
    )
    await arrivedStuck.promise
    await s.stopA()

    const after = await stored(s.config, s.pgSchema, s.webhookId)
    // Released, not left to expire; the abandoned attempt is not counted, the delivery still pending.
    expect(after.lease).toBeNull()
    const stuck = after.deliveries[0]!
    expect(stuck).toMatchObject({ status: 'pending', attempts: 0 })
    expect(s.a.errors()).toEqual([])
    expect(await jobConnections(s.pgSchema)).toBe(0)

    const b = await startProcess(s.config, s.pgSchema)
    cleanups.push(() => b.close())
    await s.receiver.waitFor(
      () => s.receiver.accepted().some((d) => d.type === 'INITIAL-COMPLETE'),
      30_000,
      'the backfill from the next process',
    )
    const answered = s.receiver.accepted().filter((d) => d.deliveryId === stuck.id)
    expect(answered).toHaveLength(1)
    // The same delivery (id, nonce), still its first recorded attempt.
    expect(answered[0]).toMatchObject({ attempt: 1, nonce: s.receiver.arrivals[0]!.nonce })
    expect(s.receiver.arrivals[0]!.deliveryId).toBe(stuck.id)
    expect(b.errors()).toEqual([])
  }, 60_000)
})

/**
 * The same through `src/main.ts` as a deploy does it: SIGTERM to a server process on PostgreSQL while a
 * delivery is in flight. The process waits for it, exits 0 without logging an error, and the lease is free.
 */
describe.skipIf(!storeKinds().includes('postgres'))('SIGTERM to a server process on PostgreSQL', () => {
  const database = scratchDatabase('unigate_stop')
  let emulator: UmamiEmulator | undefined
  let receiver: WebhookReceiver | undefined
  const release = deferred()

  afterAll(async () => {
    release.resolve()
    await killAllServerProcesses()
    await receiver?.close()
    await emulator?.close()
    await database.drop()
  })

  it('finishes the delivery in flight and exits 0', async () => {
    const env = {
      DATABASE_URL: await database.create(),
      UNIGATE_MASTER_KEY: randomBytes(32).toString('base64'),
      UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
      UNIGATE_WEBHOOK_TICK_MS: '50',
    }
    const { apiKey, secret } = await workspaceIn(env, 'sigterm')
    emulator = await startUmamiEmulator({ websites: 1, sessions: 0 })
    const first = deferred()
    let arrived = 0
    receiver = await startWebhookReceiver(secret, {
      hold: () => {
        if (++arrived !== 1) return undefined
        first.resolve()
        return release.promise
      },
    })
    const server = await startServerProcess(env, 60_000)
    const webhookId = await backfillingWebhook(server.url, apiKey, {
      connection_id: await connectUmami(server.url, apiKey, emulator.url),
      hook_url: receiver.url,
    })
    await first.promise

    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)))
    server.child.kill('SIGTERM')
    // The process is stopping (and waiting) before the receiver answers.
    await new Promise((r) => setTimeout(r, 300))
    release.resolve()
    expect(await exited, server.output()).toBe(0)

    expect(receiver.deliveries.map((d) => d.answered)).toEqual([200])
    expect(server.output()).not.toMatch(/"level":(50|60)/)
    const check = await createServices(loadConfig(env), { background: false })
    try {
      const row = await check.db
        .selectFrom('webhooks')
        .select('delivery_lease')
        .where('id', '=', webhookId)
        .executeTakeFirstOrThrow()
      expect(row.delivery_lease).toBeNull()
      // Accepted, so removed.
      const delivered = await check.db
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('id', '=', receiver.deliveries[0]!.deliveryId)
        .executeTakeFirst()
      expect(delivered).toBeUndefined()
    } finally {
      await check.close()
    }
  }, 120_000)
})
