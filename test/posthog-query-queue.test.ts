import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PosthogEmulator, startPosthogEmulator } from '../emulators/posthog/index.js'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, POSTHOG_DATA_UNTIL } from './support/posthog.js'

describe("a flooded PostHog connection: the query queue keeps the connection's bound", () => {
  let h: Harness
  let emulator: PosthogEmulator
  let conn: string
  const queue = 2

  beforeAll(async () => {
    // Each query takes 400 ms at PostHog, so the requests below overlap.
    emulator = await startPosthogEmulator({
      seed: 7,
      size: { events: 300, sessions: 40, persons: 20 },
      until: POSTHOG_DATA_UNTIL.toISOString(),
      query: { latencyMs: 400 },
    })
    h = await startHarness('sqlite', {
      outbound: { ...testConfig('sqlite').outbound, connectionQueue: queue },
    })
    conn = await connectPosthog(h, emulator)
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })

  it('runs 3 queries, queues UNIGATE_PROVIDER_CONNECTION_QUEUE more, and answers 429 beyond them', async () => {
    emulator.clearRequests()
    const lists = Array.from({ length: 3 + queue + 1 }, () =>
      h.api<{ message: string }>('GET', `/analytics/${conn}/event`, {
        query: { limit: 5, fields: 'id,name' },
      }),
    )
    const answers = await Promise.all(lists)
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 429])
    const refused = answers.find((a) => a.status === 429)!
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.body.message).toContain('PostHog runs at most 3 queries of a project at once')
    expect(refused.body.message).toContain(`UNIGATE_PROVIDER_CONNECTION_QUEUE=${queue}`)
    // What reached PostHog: the five answered lists, never more than its 3 at once.
    expect(emulator.state.queryLimiter.stats.maxConcurrent).toBe(3)
    expect(emulator.state.queryLimiter.stats.throttled).toBe(0)
  })
})
