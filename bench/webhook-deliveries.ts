/**
 * Signed webhook deliveries per second to a local receiver (a process of its own) that verifies every
 * signature, against a baseline of the same pre-signed bodies POSTed straight to that receiver with the same
 * concurrency. The ratio is what Unigate's delivery path costs: reading the stored delivery, signing,
 * sending, recording the outcome.
 *
 * `npm run bench` runs it on SQLite and on a fresh PostgreSQL database (pg-boss job runner).
 * BENCH_WEBHOOKS (default 20) webhooks each hold BENCH_DELIVERIES_PER_WEBHOOK (default 250) pages of 10 records.
 * UNIGATE_JOB_RUNNER=in-process runs the PostgreSQL store without pg-boss, to tell the job runner's cost apart.
 */
import { fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Agent, request } from 'undici'
import { loadConfig } from '../src/config.js'
import { createServices } from '../src/services.js'
import { deliveryBody, signDelivery } from '../src/webhooks/index.js'
import { commitNativeDeliveries } from '../src/webhooks/native-store.js'
import { deliveryPages } from '../src/webhooks/pages.js'
import { type LoadResult, ROUNDS } from './load.js'
import { cpuTimeOfNamedMs } from './processes.js'

const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 20)
const PER_WEBHOOK = Number(process.env.BENCH_DELIVERIES_PER_WEBHOOK ?? 250)
const TOTAL = WEBHOOKS * PER_WEBHOOK

/**
 * BENCH_CPU_PROF=<dir> profiles the baseline and the Unigate phase apart (one process runs both), into
 * `<dir>/webhooks-<store>/{baseline,unigate}.cpuprofile`, for `bench/profile-summary.ts`.
 */
async function profiled<T>(store: string, phase: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF
  if (!dir) return run()
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  try {
    return await run()
  } finally {
    const { profile } = await session.post('Profiler.stop')
    session.disconnect()
    mkdirSync(join(dir, `webhooks-${store}`), { recursive: true })
    writeFileSync(join(dir, `webhooks-${store}`, `${phase}.cpuprofile`), JSON.stringify(profile))
  }
}

type ReceiverMessage =
  | { type: 'listening'; port: number }
  | { type: 'reset' }
  | { type: 'counts'; verified: number; rejected: number }
  | { type: 'report'; verified: number; rejected: number; arrivals: number[]; cpuUs: number }

/**
 * The receiver (bench/baselines/webhook-receiver.mjs) runs in a process of its own, for the baseline and for
 * Unigate alike: it verifies sig256 on every body and counts what it accepted, as a real receiver elsewhere
 * would, so this process's CPU time is the sender's alone (the baseline's POSTs, or Unigate's delivery path).
 */
async function startReceiver(secret: string) {
  const child = fork(join(import.meta.dirname, 'baselines', 'webhook-receiver.mjs'), [], {
    env: { PATH: process.env.PATH ?? '', SECRET: secret },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const ask = <T extends ReceiverMessage['type']>(type: T, send?: { type: string }) =>
    new Promise<Extract<ReceiverMessage, { type: T }>>((resolve, reject) => {
      const onMessage = (m: ReceiverMessage) => {
        if (m.type !== type) return
        child.off('message', onMessage)
        child.off('exit', onExit)
        resolve(m as Extract<ReceiverMessage, { type: T }>)
      }
      const onExit = () => reject(new Error('the webhook receiver exited'))
      child.on('message', onMessage)
      child.once('exit', onExit)
      if (send) child.send(send)
    })
  const { port } = await ask('listening')
  return {
    url: `http://127.0.0.1:${port}/hook`,
    counts: () => ask('counts', { type: 'counts' }),
    report: () => ask('report', { type: 'report' }),
    reset: () => ask('reset', { type: 'reset' }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.disconnect()
      }),
  }
}

const records = (page: number) =>
  Array.from({ length: 10 }, (_, i) => ({ id: `p${page}-${i}`, name: `Property ${i}`, timezone: 'UTC' }))

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0
    ? 0
    : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!)
}

/** Keeps the faster of two results of one target; failures are never best-of (every round's count). */
function best(kept: LoadResult | undefined, result: LoadResult): LoadResult {
  const better = !kept || result.requestsPerSecond > kept.requestsPerSecond ? result : kept
  return {
    ...better,
    errors: result.errors + (kept?.errors ?? 0),
    non2xx: result.non2xx + (kept?.non2xx ?? 0),
  }
}

const us = (n: number) => `${n.toFixed(0)} µs`
/** The sender's, the receiver's and the database's CPU for one delivery. */
const machineCpu = (u: { cpu: number; receiver: number; database: number }) => u.cpu + u.receiver + u.database
/** Deliveries a second that two cores could give at that CPU a delivery, with nothing else running. */
const ceiling = (u: { cpu: number; receiver: number; database: number }) =>
  Math.floor(2e6 / machineCpu(u)).toLocaleString('en-US')

export async function benchWebhookDeliveries(
  databaseUrl?: string,
): Promise<{ rows: LoadResult[]; summary: string }> {
  const config = loadConfig({
    UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-bench-')),
    UNIGATE_MASTER_KEY: randomBytes(32).toString('base64'),
    UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
    UNIGATE_WEBHOOK_TICK_MS: '50',
    // As many deliveries in flight as the baseline has POSTs in flight: one per webhook.
    UNIGATE_WEBHOOK_CONCURRENCY: String(WEBHOOKS),
    LOG_LEVEL: 'warn',
    ...(process.env.UNIGATE_JOB_RUNNER ? { UNIGATE_JOB_RUNNER: process.env.UNIGATE_JOB_RUNNER } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  })
  const store = config.databaseUrl ? 'PostgreSQL' : 'SQLite'
  const services = await createServices(config, { background: false })
  const { workspace, secret } = await services.workspaces.create('bench')
  const receiver = await startReceiver(secret)
  const connection = await services.connectionStore.insert({
    id: `cn_bench_${randomBytes(4).toString('hex')}`,
    workspace_id: workspace.id,
    integration_type: 'umami',
    categories: ['analytics'],
    permissions: ['analytics_property_read'],
    environment: 'Production',
    credentials: {},
    settings: {},
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  })

  /**
   * Per delivery, the least of the rounds: CPU time of this process (the sender: the baseline's POSTs or
   * Unigate's whole delivery path), of the receiver's process, and the time this process's event loop was
   * busy (CPU plus what it waited for synchronously, such as a SQLite commit's fsync). Unlike deliveries per
   * second, CPU time hardly moves with what else the machine runs (PostgreSQL's own work is not in it).
   */
  const least = () => ({
    cpu: Number.POSITIVE_INFINITY,
    receiver: Number.POSITIVE_INFINITY,
    busy: Number.POSITIVE_INFINITY,
    database: Number.POSITIVE_INFINITY,
  })
  const usage = { baseline: least(), unigate: least() }
  // PostgreSQL's own processes (its backends, WAL writer…) share the machine's two cores with the sender and
  // the receiver: what they spend per delivery is part of what the machine can send, though none of it is
  // this process's. Read only on PostgreSQL (the whole server's, so other work on it counts too).
  const databaseCpuMs = () => (store === 'PostgreSQL' ? cpuTimeOfNamedMs('postgres') : 0)
  const measure = () => {
    const cpuStarted = process.cpuUsage()
    const loopStarted = performance.eventLoopUtilization()
    const databaseStarted = databaseCpuMs()
    return async (target: keyof typeof usage) => {
      const used = process.cpuUsage(cpuStarted)
      const loop = performance.eventLoopUtilization(loopStarted)
      const database = databaseCpuMs() - databaseStarted
      const report = await receiver.report()
      const kept = usage[target]
      kept.cpu = Math.min(kept.cpu, (used.user + used.system) / TOTAL)
      kept.busy = Math.min(kept.busy, (loop.active * 1000) / TOTAL)
      kept.receiver = Math.min(kept.receiver, report.cpuUs / TOTAL)
      kept.database = Math.min(kept.database, (database * 1000) / TOTAL)
      return { ...report, cpuUsPerDelivery: (used.user + used.system) / TOTAL }
    }
  }

  /** Baseline: the same bodies, already signed, POSTed with the same concurrency as Unigate's deliverers. */
  async function presigned(): Promise<LoadResult> {
    await receiver.reset()
    const agent = new Agent({ connections: WEBHOOKS })
    const bodies = Array.from({ length: TOTAL }, (_, i) => {
      const dataJson = JSON.stringify(records(i))
      const nonce = randomBytes(24).toString('base64url')
      return deliveryBody({
        dataJson,
        webhook: { id: 'wh' },
        nonce,
        sig256: signDelivery(secret, dataJson, nonce),
        type: 'VIRTUAL',
      })
    })
    const latencies: number[] = []
    let next = 0
    const started = performance.now()
    const measured = measure()
    await Promise.all(
      Array.from({ length: WEBHOOKS }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!
          const t = performance.now()
          const res = await request(receiver.url, {
            method: 'POST',
            body,
            dispatcher: agent,
            headers: { 'content-type': 'application/json' },
          })
          await res.body.dump()
          latencies.push(performance.now() - t)
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const report = await measured('baseline')
    await agent.close()
    latencies.sort((a, b) => a - b)
    return {
      name: 'pre-signed POSTs straight to the receiver (baseline)',
      requestsPerSecond: TOTAL / seconds,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      non2xx: 0,
      errors: report.rejected + Math.abs(report.verified - TOTAL),
      cpuUsPerRequest: report.cpuUsPerDelivery,
    }
  }

  /**
   * Unigate: fresh webhooks, paused while their deliveries are stored as a poll would store them, then
   * unpaused at once; done when the receiver has every delivery and none is left pending in the store.
   */
  async function throughUnigate(round: number): Promise<LoadResult> {
    await receiver.reset()
    const ids: string[] = []
    for (let w = 0; w < WEBHOOKS; w++) {
      const webhook = await services.webhooks.store.insert({
        id: `wh_bench_${round}_${w}`,
        workspace_id: workspace.id,
        connection_id: connection.id,
        integration_type: 'umami',
        object_type: 'analytics_property',
        event: 'created',
        hook_url: receiver.url,
        interval: 100_000,
        page_max_limit: 10,
        filters: {},
        webhook_type: 'virtual',
        environment: 'Production',
        include_all: false,
        is_paused: true,
        created_at: new Date().toISOString(),
      })
      ids.push(webhook.id)
      const pages = Array.from({ length: PER_WEBHOOK }, (_, i) => records(w * PER_WEBHOOK + i)).flat()
      await commitNativeDeliveries(
        services.db,
        webhook.id,
        deliveryPages(pages, 10, 'VIRTUAL'),
        new Date().toISOString(),
      )
    }
    const pending = async () =>
      Number(
        (
          await services.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('webhook_id', 'in', ids)
            .where('status', '=', 'pending')
            .executeTakeFirstOrThrow()
        ).n,
      )
    return profiled(store, `unigate-${round}`, async () => {
      const t0 = performance.now()
      // Arrivals are stamped in the receiver's process: epoch milliseconds on both sides.
      const t0Epoch = performance.timeOrigin + t0
      const measured = measure()
      await services.db.updateTable('webhooks').set({ is_paused: 0 }).where('id', 'in', ids).execute()
      const arrived = async () => {
        const { verified, rejected } = await receiver.counts()
        return verified + rejected
      }
      while ((await arrived()) < TOTAL || (await pending()) > 0) await new Promise((r) => setTimeout(r, 20))
      const seconds = (performance.now() - t0) / 1000
      const report = await measured('unigate')
      const gaps = report.arrivals
        .map((t, i, all) => (i === 0 ? t - t0Epoch : t - all[i - 1]!))
        .sort((a, b) => a - b)
      return {
        name: `through Unigate (${config.webhooks.jobRunner}, ${store})`,
        requestsPerSecond: TOTAL / seconds,
        p50Ms: percentile(gaps, 0.5),
        p99Ms: percentile(gaps, 0.99),
        non2xx: 0,
        errors: report.rejected + Math.max(0, report.verified - TOTAL),
        cpuUsPerRequest: report.cpuUsPerDelivery,
      }
    })
  }

  try {
    // The job runner starts before the clock does (pg-boss creates its schema); both targets run in
    // alternating rounds and keep their best, as the gateway benchmarks do.
    await services.webhooks.start()
    let direct: LoadResult | undefined
    let through: LoadResult | undefined
    for (let round = 0; round < ROUNDS; round++) {
      direct = best(direct, await profiled(store, `baseline-${round}`, presigned))
      through = best(through, await throughUnigate(round))
    }
    if (!direct || !through) throw new Error('BENCH_ROUNDS must be at least 1')
    const ratio = through.requestsPerSecond / direct.requestsPerSecond
    return {
      rows: [direct, through],
      summary:
        `${TOTAL} deliveries of 10 records over ${WEBHOOKS} webhooks, every sig256 verified by the receiver, ` +
        `best of ${ROUNDS} alternating rounds: Unigate sends ${through.requestsPerSecond.toFixed(0)} signed ` +
        `deliveries/s, ${(ratio * 100).toFixed(0)}% of the baseline (latency columns: baseline = request round ` +
        'trip; Unigate = gap between arrivals; Unigate is done when every delivery is also marked delivered; ' +
        'the receiver runs in a process of its own for both). Per delivery, least of the rounds: CPU of the ' +
        `sending process baseline ${us(usage.baseline.cpu)}, Unigate ${us(usage.unigate.cpu)} ` +
        `(${(usage.unigate.cpu / usage.baseline.cpu).toFixed(2)}x); its event loop busy (CPU and synchronous ` +
        `waits) baseline ${us(usage.baseline.busy)}, Unigate ${us(usage.unigate.busy)}; the receiver's CPU ` +
        `baseline ${us(usage.baseline.receiver)}, Unigate ${us(usage.unigate.receiver)}` +
        (store === 'PostgreSQL'
          ? `; PostgreSQL's processes' CPU baseline ${us(usage.baseline.database)}, Unigate ` +
            `${us(usage.unigate.database)} (in all, the machine's CPU a delivery: baseline ` +
            `${us(machineCpu(usage.baseline))}, Unigate ${us(machineCpu(usage.unigate))}; at most ` +
            `${ceiling(usage.unigate)} deliveries/s on 2 cores at that cost).`
          : '.'),
    }
  } finally {
    await services.close()
    await receiver.close()
  }
}

/** What a run in a child process prints on stdout, on one line, for bench/run.ts to pick up. */
export const RESULT_MARKER = 'BENCH_WEBHOOK_RESULT '

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchWebhookDeliveries(process.env.DATABASE_URL)
  if (process.argv.includes('--json')) {
    console.log(`${RESULT_MARKER}${JSON.stringify(result)}`)
  } else {
    const { table } = await import('./load.js')
    console.log(`${table(result.rows)}\n\n${result.summary}`)
  }
  process.exit(0)
}
