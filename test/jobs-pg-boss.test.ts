import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { PgBossJobQueue } from '../src/jobs/pg-boss-queue.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** One deferred per subject, made when first asked for: a test resolves it when that subject's job starts. */
function startSignals() {
  const signals = new Map<string, ReturnType<typeof deferred>>()
  return (subject: string) => {
    if (!signals.has(subject)) signals.set(subject, deferred())
    return signals.get(subject)!
  }
}

const onPostgres = storeKinds().includes('postgres')

describe.runIf(onPostgres)('the pg-boss job queue', () => {
  let queue: PgBossJobQueue | undefined
  let schema: string | undefined
  afterEach(async () => {
    await queue?.stop()
    if (schema) await dropSchema(schema)
  })

  /** A queue on a schema of the test's own, polling every half second, stopping within 5 s. */
  function queueOf(concurrency: number, onError: (err: unknown) => void): PgBossJobQueue {
    schema = uniqueSchema()
    return new PgBossJobQueue({
      connectionString: process.env.TEST_DATABASE_URL!,
      schema,
      concurrency,
      pollingIntervalSeconds: 0.5,
      stopTimeoutMs: 5_000,
      onError,
    })
  }

  /** A queue of two slots whose poll jobs record that they ran, then hold their slot until released. */
  async function pollsHeldUntilReleased() {
    const held = queueOf(2, () => undefined)
    queue = held
    const release = deferred()
    const started = startSignals()
    const runs: string[] = []
    held.handle('poll', async (subject) => {
      runs.push(subject)
      started(subject).resolve()
      await release.promise
    })
    await held.start()
    return { held, release, started, runs }
  }

  it('runs jobs asked for while a long one runs without waiting for it, up to the concurrency', async () => {
    const errors: unknown[] = []
    queue = queueOf(3, (err) => errors.push(err))
    const release = deferred()
    const startedOf = startSignals()
    const runs: string[] = []
    let active = 0
    let mostActive = 0
    queue.handle('deliver', async (subject) => {
      runs.push(subject)
      mostActive = Math.max(mostActive, ++active)
      startedOf(subject).resolve()
      // The first job is a long delivery run: it holds on until the test lets it go.
      if (subject === 'wh_long') await release.promise
      active--
    })
    await queue.start()

    await queue.enqueue('deliver', 'wh_long')
    await startedOf('wh_long').promise
    // Asked for while the long one runs (pg-boss fetched that one alone): they must not wait for it.
    for (const subject of ['wh_a', 'wh_b', 'wh_c']) await queue.enqueue('deliver', subject)
    await Promise.all(['wh_a', 'wh_b', 'wh_c'].map((s) => startedOf(s).promise))
    expect(runs.slice(0, 1)).toEqual(['wh_long'])
    expect(new Set(runs.slice(1))).toEqual(new Set(['wh_a', 'wh_b', 'wh_c']))
    expect(mostActive).toBeLessThanOrEqual(3)
    release.resolve()
    expect(errors).toEqual([])
  })

  it("brings another workspace's job to the slot kept for it while one workspace's jobs wait for slots", async () => {
    const { held, release, started, runs } = await pollsHeldUntilReleased()
    try {
      await held.enqueue('poll', 'wh_a1', { group: 'ws_a' })
      await started('wh_a1').promise
      // ws_a's second job is fetched but held back: the other slot is kept for a workspace with nothing
      // running. The worker must fetch again rather than wait for ws_a's slot, or ws_b's job stays in PostgreSQL.
      await held.enqueue('poll', 'wh_a2', { group: 'ws_a' })
      await held.enqueue('poll', 'wh_b1', { group: 'ws_b' })
      await started('wh_b1').promise
      expect(runs).toEqual(['wh_a1', 'wh_b1'])
    } finally {
      release.resolve()
    }
  })

  it("brings another workspace's job to the free slot however many of a busy workspace's jobs are held back", async () => {
    const { held, release, started, runs } = await pollsHeldUntilReleased()
    try {
      await held.enqueue('poll', 'wh_a1', { group: 'ws_a' })
      await started('wh_a1').promise
      // ws_a has a backlog: more of its jobs are fetched than the one slot it may not take. They are held
      // back, and the worker must still fetch again, or ws_b's job stays in PostgreSQL until wh_a1 ends.
      for (const subject of ['wh_a2', 'wh_a3', 'wh_a4'])
        await held.enqueue('poll', subject, { group: 'ws_a' })
      await new Promise((r) => setTimeout(r, 1_500))
      await held.enqueue('poll', 'wh_b1', { group: 'ws_b' })
      // Ten polling intervals: ample for a worker that fetches; never for one waiting on wh_a1.
      await Promise.race([started('wh_b1').promise, new Promise((r) => setTimeout(r, 5_000))])
      expect(runs).toEqual(['wh_a1', 'wh_b1'])
    } finally {
      release.resolve()
    }
  })

  it('hands out the jobs waiting in PostgreSQL by turn, earliest first, whatever order they were asked in', async () => {
    queue = queueOf(1, () => undefined)
    const release = deferred()
    const longStarted = deferred()
    const runs: string[] = []
    queue.handle('deliver', async (subject) => {
      runs.push(subject)
      if (subject === 'wh_long') {
        longStarted.resolve()
        await release.promise
      }
    })
    await queue.start()
    await queue.enqueue('deliver', 'wh_long')
    await longStarted.promise
    // The one slot is taken: the next job fetched (wh_next) holds the worker until the slot frees, so what
    // is asked for after it waits in PostgreSQL, where pg-boss picks by priority.
    await queue.enqueue('deliver', 'wh_next', { turn: 9 })
    const db = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await db.connect()
    try {
      for (;;) {
        const { rows } = await db.query(
          `select state from "${schema}".job where data->>'subject' = 'wh_next'`,
        )
        if (rows[0]?.state === 'active') break
        await new Promise((r) => setTimeout(r, 20))
      }
    } finally {
      await db.end()
    }
    await queue.enqueue('deliver', 'wh_c', { turn: 1 })
    await queue.enqueue('deliver', 'wh_b', { turn: 0 })
    await queue.enqueue('deliver', 'wh_a', { turn: 2 })
    release.resolve()
    while (runs.length < 5) await new Promise((r) => setTimeout(r, 20))
    expect(runs).toEqual(['wh_long', 'wh_next', 'wh_b', 'wh_c', 'wh_a'])
  })

  it('lets a running job finish when stopping and refuses none of it', async () => {
    queue = queueOf(2, () => undefined)
    const running = deferred()
    const release = deferred()
    let sawStopping = false
    let finished = false
    queue.handle('deliver', async (_subject, signals) => {
      running.resolve()
      await release.promise
      sawStopping = signals.stopping.aborted
      finished = true
    })
    await queue.start()
    await queue.enqueue('deliver', 'wh_1')
    await running.promise
    const stopped = queue.stop()
    await new Promise((r) => setTimeout(r, 100))
    release.resolve()
    await stopped
    queue = undefined
    expect(sawStopping).toBe(true)
    expect(finished).toBe(true)
  })
})
