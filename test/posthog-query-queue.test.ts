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

describe("another workspace's queries to a project its connection was not verified with do not take that project's queue", () => {
  let h: Harness
  let emulator: PosthogEmulator
  let victim: string
  let other: { workspaceId: string; apiKey: string }
  let attacker: string
  const queue = 2

  beforeAll(async () => {
    emulator = await startPosthogEmulator({
      seed: 7,
      size: { events: 300, sessions: 40, persons: 20, projects: 2 },
      until: POSTHOG_DATA_UNTIL.toISOString(),
      query: { latencyMs: 400 },
    })
    h = await startHarness('sqlite', {
      outbound: { ...testConfig('sqlite').outbound, connectionQueue: queue },
    })
    // The victim's connection is verified with project 1 (the key's current team then), the other
    // workspace's with project 2.
    emulator.state.currentTeamId = 1
    victim = await connectPosthog(h, emulator)
    other = await h.otherWorkspace()
    emulator.state.currentTeamId = 2
    attacker = await connectPosthog(h, emulator, {}, other.apiKey)
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })

  it("answers the victim's list while the other workspace floods the victim's project id", async () => {
    const flood = Array.from({ length: 3 + queue }, () =>
      h.api('GET', `/analytics/${attacker}/event`, {
        key: other.apiKey,
        query: { limit: 5, fields: 'id,name', property_id: '1' },
      }),
    )
    // The victim asks once three of the flood's queries run at PostHog (each takes 400 ms there) and the
    // other two wait for them here.
    while (emulator.state.queryLimiter.stats.maxConcurrent < 3) await new Promise((r) => setTimeout(r, 5))
    const own = await h.api<{ message?: string }>('GET', `/analytics/${victim}/event`, {
      query: { limit: 5, fields: 'id,name' },
    })
    // The other workspace's own queries are answered too: the bound still applies to them, in their own queue.
    expect((await Promise.all(flood)).map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
    expect(own.status, own.text).toBe(200)
  })
})

describe("a workspace waiting for its own provider slots holds none of a project's 3 query slots", () => {
  let h: Harness
  let emulator: PosthogEmulator
  let busy: string
  let other: { workspaceId: string; apiKey: string }
  let elsewhere: string

  beforeAll(async () => {
    emulator = await startPosthogEmulator({
      seed: 7,
      size: { events: 300, sessions: 40, persons: 20 },
      until: POSTHOG_DATA_UNTIL.toISOString(),
    })
    h = await startHarness('sqlite', {
      outbound: { ...testConfig('sqlite').outbound, workspaceConcurrency: 2 },
    })
    // Both workspaces' connections are verified with project 1: they share its queue of 3 queries.
    busy = await connectPosthog(h, emulator)
    other = await h.otherWorkspace()
    elsewhere = await connectPosthog(h, emulator, {}, other.apiKey)
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })

  it("answers another workspace's list of the project while the busy workspace's lists wait for their slots", async () => {
    const limiter = h.services.transport.workspaceLimiter
    // The busy workspace's 2 slots are taken (say, by relays to callers that read slowly).
    const taken = [limiter.tryAcquire(h.workspaceId)!, limiter.tryAcquire(h.workspaceId)!]
    emulator.clearRequests()
    const waiting = Array.from({ length: 3 }, () =>
      h.api('GET', `/analytics/${busy}/event`, { query: { limit: 5, fields: 'id,name' } }),
    )
    while (limiter.load(h.workspaceId).waiting < 3) await new Promise((r) => setTimeout(r, 5))
    const list = h.api<{ message?: string }>('GET', `/analytics/${elsewhere}/event`, {
      key: other.apiKey,
      query: { limit: 5, fields: 'id,name' },
    })
    // Before, each waiting list held one of the project's 3 query slots: this one waited 30 s, then a 429.
    const answered = await Promise.race([list, new Promise((r) => setTimeout(r, 3_000, 'still waiting'))])
    const queriesMeanwhile = emulator.requests().filter((r) => r.path.endsWith('/query/')).length
    for (const release of taken) release()
    expect((await Promise.all(waiting)).map((a) => a.status)).toEqual([200, 200, 200])
    expect(answered).not.toBe('still waiting')
    const own = await list
    expect(own.status, JSON.stringify(own.body)).toBe(200)
    // Only its query reached PostHog while the busy workspace's waited; never more than PostHog's 3 at once.
    expect(queriesMeanwhile).toBe(1)
    expect(emulator.state.queryLimiter.stats.maxConcurrent).toBeLessThanOrEqual(3)
    expect(emulator.state.queryLimiter.stats.throttled).toBe(0)
  })
})
