import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ProviderTransport } from '../../outbound/index.js'
import { memoryCursors } from '../cursors.js'
import { ProviderClient } from '../http-client.js'
import type { HandlerContext } from '../types.js'
import definition from './definition.js'
import { QUERIES_PER_TEAM } from './query-slots.js'
import { runHogQL } from './requests.js'

/**
 * A PostHog whose query answers start (status and headers sent) at once and end only when the test says,
 * so that what reaches it while answers are still arriving can be counted.
 */
let server: ReturnType<typeof createServer>
let url: string
let status = 200
let arrived = 0
const held: ServerResponse[] = []
/** Every transport a test made, closed at the end. */
const transports: ProviderTransport[] = []

function answer(_req: IncomingMessage, res: ServerResponse) {
  arrived++
  res.writeHead(status, { 'content-type': 'application/json' })
  res.flushHeaders()
  held.push(res)
}

function finishAll() {
  const body = status === 200 ? { columns: ['n'], types: [], results: [[1]] } : { detail: 'busy' }
  for (const res of held.splice(0)) res.end(JSON.stringify(body))
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => answer(req, res))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  finishAll()
  await Promise.all(transports.map((t) => t.close()))
  await new Promise((r) => server.close(r))
})
/** Every query a test starts: each test ends only once they all have, so none runs into the next. */
let started: Promise<unknown>[] = []
function query(ctx: HandlerContext, i: number): Promise<unknown> {
  const q = runHogQL(ctx, '1', `SELECT ${i}`, 'test', 1).catch((e: unknown) => e)
  started.push(q)
  return q
}

afterEach(async () => {
  // Answers held by a failed test end too, and any query still waiting for a slot is answered.
  let settled = false
  const all = Promise.all(started).then(() => {
    settled = true
  })
  while (!settled) {
    finishAll()
    await Promise.race([all, new Promise((r) => setTimeout(r, 10))])
  }
  started = []
  arrived = 0
})

function context(maxRetries: number): HandlerContext {
  const credentials = { token: 'phx_test', api_url: url }
  const transport = new ProviderTransport({
    allowAddresses: ['loopback'],
    timeoutMs: 5000,
    maxBodyBytes: 1024 * 1024,
    answerDeadlineMs: 60_000,
    operationDeadlineMs: 600_000,
    connectionConcurrency: 8,
    connectionQueue: 64,
    workspaceConcurrency: 256,
    workspaceQueue: 1024,
    heapShedPercent: 75,
  })
  transports.push(transport)
  return {
    client: new ProviderClient({
      baseUrl: definition.baseUrl(credentials),
      authHeaders: definition.authHeaders(credentials),
      retry: definition.retry,
      timeoutMs: 5000,
      maxRetries,
      maxRetryWaitMs: 3000,
      transport,
    }),
    credentials,
    settings: { project_id: '1' },
    connectionId: 'conn_answers',
    fields: { raw: false, rawNames: [], slow: new Set() },
    rawParams: {},
    cursors: memoryCursors(),
  }
}

describe("PostHog's query slots, freed as PostHog frees them", () => {
  it('sends the next query once an answer has begun, while its body is still arriving', async () => {
    status = 200
    const ctx = context(0)
    const queries = Array.from({ length: QUERIES_PER_TEAM + 1 }, (_, i) => query(ctx, i))
    // The first three answers have sent their headers and hold their bodies: the fourth query still goes.
    await vi.waitFor(() => expect(arrived).toBe(QUERIES_PER_TEAM + 1), { timeout: 5000 })
    finishAll()
    const answers = (await Promise.all(queries)) as { results?: unknown }[]
    expect(answers.map((a) => a.results)).toEqual(answers.map(() => [[1]]))
  })

  it.each([
    [503, 'a failure, which may be asked again'],
    [202, "a query still running (PostHog's async modes)"],
  ])('keeps the slot of a query answered %i, %s, until the call ends', async (answered) => {
    status = answered
    const ctx = context(0)
    const queries = Array.from({ length: QUERIES_PER_TEAM + 1 }, (_, i) => query(ctx, i))
    await vi.waitFor(() => expect(arrived).toBe(QUERIES_PER_TEAM), { timeout: 5000 })
    // Three failing answers hold their bodies: the fourth query waits for a slot until one has ended.
    await new Promise((r) => setTimeout(r, 200))
    expect(arrived).toBe(QUERIES_PER_TEAM)
    finishAll()
    await vi.waitFor(() => expect(arrived).toBe(QUERIES_PER_TEAM + 1), { timeout: 5000 })
    finishAll()
    const failures = await Promise.all(queries)
    // A 202 has no results to list: a 502 saying so.
    const expected = answered === 202 ? 502 : 503
    expect(failures.map((f) => (f as { status?: number }).status)).toEqual(failures.map(() => expected))
  })
})
