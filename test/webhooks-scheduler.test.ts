import { afterEach, describe, expect, it } from 'vitest'
import { InProcessJobQueue } from '../src/jobs/in-process-queue.js'
import { createServices, type Services } from '../src/services.js'
import { commitNativeDeliveries } from '../src/webhooks/native-store.js'
import { deliveryPages } from '../src/webhooks/pages.js'
import { DELIVER_JOB, POLL_JOB, WebhookScheduler } from '../src/webhooks/scheduler.js'
import { testConfig } from './support/config.js'
import { propertyWebhookSpec, storeWebhooks } from './support/stored-webhook.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'

/** More due webhooks than the scheduler takes in one look (its batch is 500). */
const CROWD = 501

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
})
