import { afterEach, describe, expect, it } from 'vitest'
import { InProcessJobQueue } from '../src/jobs/in-process-queue.js'
import { createServices, type Services } from '../src/services.js'
import { dueInTurns } from '../src/webhooks/due-in-turns.js'
import { claimLease } from '../src/webhooks/leases.js'
import { commitNativeDeliveries } from '../src/webhooks/native-store.js'
import { deliveryPages } from '../src/webhooks/pages.js'
import { DELIVER_JOB, POLL_JOB, WebhookScheduler } from '../src/webhooks/scheduler.js'
import { testConfig } from './support/config.js'
import { propertyWebhookSpec, storeWebhooks } from './support/stored-webhook.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'

/** More due webhooks than the scheduler takes in one look (its batch is 500). */
const CROWD = 501

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes)).toISOString()

describe.each(storeKinds())('the webhook scheduler on %s', (store) => {
  let services: Services | undefined
  let schema: string | undefined
  let queue: InProcessJobQueue | undefined
  afterEach(async () => {
    await queue?.stop()
    await services?.close()
    if (schema) await dropSchema(schema)
  })

  async function open(): Promise<Services> {
    schema = store === 'postgres' ? uniqueSchema() : undefined
    services = await createServices(testConfig(store), {
      background: false,
      ...(schema ? { pgSchema: schema } : {}),
    })
    return services
  }

  /** A workspace with `count` webhooks whose polls fell due at `dueAt(i)`; answers their ids in that order. */
  async function workspaceWithDueWebhooks(
    s: Services,
    name: string,
    count: number,
    dueAt: (i: number) => string,
  ) {
    const each = Array.from({ length: count }, (_, i) => ({
      id: `wh_${name}_${String(i).padStart(4, '0')}`,
      next_check_at: dueAt(i),
    }))
    const webhooks = await storeWebhooks(s, propertyWebhookSpec(name, 60), each)
    return webhooks.map((w) => w.id)
  }

  /** The jobs of `kind` one tick starts, in the order they start, on a queue that runs one at a time. */
  async function jobsStartedByOneTick(s: Services, kind: string): Promise<string[]> {
    const started: string[] = []
    queue = new InProcessJobQueue(1, (err) => {
      throw err
    })
    queue.handle(kind, async (subject) => {
      started.push(subject)
    })
    await queue.start()
    await new WebhookScheduler(s.db, s.webhooks.deliveries, queue).tick()
    await queue.allStarted()
    return started
  }

  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString()

  it("starts a quiet workspace's due poll second, not behind a crowded workspace's batch", async () => {
    const s = await open()
    // The crowd fell due first (days ago); the quiet workspace's one webhook a minute ago.
    const crowd = await workspaceWithDueWebhooks(s, 'crowd', CROWD, (i) => minutesAgo(10_000 - i))
    const [quiet] = await workspaceWithDueWebhooks(s, 'quiet', 1, () => minutesAgo(1))
    const started = await jobsStartedByOneTick(s, POLL_JOB)
    // Before, the batch was the 500 longest due, all the crowd's: the quiet webhook waited for a later tick
    // (and, behind a backlog, for every crowded poll due before it).
    expect(started.slice(0, 3)).toEqual([crowd[0], quiet, crowd[1]])
    expect(started).toHaveLength(500)
  })

  it("starts a quiet workspace's due deliveries second, not behind a crowded workspace's batch", async () => {
    const s = await open()
    const notYet = new Date(Date.now() + 3_600_000).toISOString()
    const crowd = await workspaceWithDueWebhooks(s, 'crowd', CROWD, () => notYet)
    const [quiet] = await workspaceWithDueWebhooks(s, 'quiet', 1, () => notYet)
    const page = deliveryPages([{ id: 'p1', name: 'Property 1' }], 1, 'VIRTUAL')
    for (const [i, id] of crowd.entries())
      await commitNativeDeliveries(s.db, id, page, minutesAgo(10_000 - i))
    await commitNativeDeliveries(s.db, quiet!, page, minutesAgo(1))
    const started = await jobsStartedByOneTick(s, DELIVER_JOB)
    expect(started.slice(0, 3)).toEqual([crowd[0], quiet, crowd[1]])
    expect(started).toHaveLength(500)
  })
  it("keeps a slot for another workspace's poll while one workspace's long checks run", async () => {
    const s = await open()
    const crowd = await workspaceWithDueWebhooks(s, 'crowd', 5, (i) => minutesAgo(100 - i))
    const started: string[] = []
    let release!: () => void
    const released = new Promise<void>((r) => {
      release = r
    })
    queue = new InProcessJobQueue(3, (err) => {
      throw err
    })
    // Checks that run long (a big backfill): they hold their slots until the test lets them go.
    queue.handle(POLL_JOB, async (subject) => {
      started.push(subject)
      await released
    })
    await queue.start()
    const scheduler = new WebhookScheduler(s.db, s.webhooks.deliveries, queue)
    try {
      await scheduler.tick()
      expect(started).toEqual(crowd.slice(0, 2))
      // Another workspace's webhook falls due while the crowd's checks run: the next look starts it at once.
      const [quiet] = await workspaceWithDueWebhooks(s, 'quiet', 1, () => minutesAgo(1))
      await scheduler.tick()
      expect(started).toEqual([...crowd.slice(0, 2), quiet])
    } finally {
      release()
    }
  })

  it("answers the poll look's fair batch when many more are due than it ranks whole", async () => {
    const s = await open()
    // Workspaces of 1, 2, 5 and 30 due webhooks, some paused, some with a held lease, some not due yet.
    const sizes = { one: 1, two: 2, five: 5, many: 30 }
    const all: { id: string; workspace_id: string; due: string; skipped: boolean }[] = []
    for (const [name, size] of Object.entries(sizes)) {
      const each = Array.from({ length: size + 2 }, (_, i) => ({
        id: `wh_${name}_${String(i).padStart(2, '0')}`,
        // Interleaved in time across workspaces, several due at the same minute, two of each not due yet.
        next_check_at: i < size ? at(Math.floor(((i * 7 + name.length * 3) % 60) / 4)) : at(200 + i),
        is_paused: i === 3,
      }))
      for (const w of await storeWebhooks(s, propertyWebhookSpec(name, 60), each)) {
        const leased = w.id.endsWith('_04') && (await claimLease(s.db, 'poll', w.id, 't', at(0), at(500)))
        if (w.next_check_at! <= at(100))
          all.push({
            id: w.id,
            workspace_id: w.workspace_id,
            due: w.next_check_at!,
            skipped: w.is_paused || leased,
          })
      }
    }
    // What the look promises, computed from every row: turns by due time then id, earliest turns first.
    const eligible = all.filter((w) => !w.skipped)
    const byDue = (x: { due: string; id: string }, y: { due: string; id: string }) =>
      x.due < y.due ? -1 : x.due > y.due ? 1 : x.id < y.id ? -1 : 1
    const turnOf = new Map<string, number>()
    for (const workspace of new Set(eligible.map((w) => w.workspace_id)))
      for (const [turn, w] of eligible
        .filter((e) => e.workspace_id === workspace)
        .sort(byDue)
        .entries())
        turnOf.set(w.id, turn)
    const expected = [...eligible]
      .sort((x, y) => turnOf.get(x.id)! - turnOf.get(y.id)! || byDue(x, y))
      .map((w) => ({ id: w.id, workspace_id: w.workspace_id, turn: turnOf.get(w.id)! }))
    expect(eligible.length).toBeGreaterThan(30)
    for (const limit of [1, 3, 4, 5, 9, 15, 40])
      expect(
        await dueInTurns(s.db, { due: 'next_check_at', leaseUntil: 'poll_lease_until' }, at(100), limit),
      ).toEqual(expected.slice(0, limit))
  })
})
