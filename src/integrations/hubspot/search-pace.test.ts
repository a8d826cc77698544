import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { pacedConnections, paceSearch, searchPaceKey } from './search-pace.js'

/** A check on whether `p` has settled by the time it is asked. */
function watch(p: Promise<unknown>): () => boolean {
  let settled = false
  void p.then(() => {
    settled = true
  })
  return () => settled
}

/** Moves the (fake) clock on by `ms`, running what comes due. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms)

/** `n` searches of `key`, each answered at once: their places free a second from now. */
async function searchAnswered(key: string, n: number) {
  for (let i = 0; i < n; i++) (await paceSearch(key, 10))()
}

describe('paceSearch', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('forgets connections that have not searched for a second, so the process does not keep one per connection', async () => {
    // A clock of its own, far from any other test's, so no other connection's searches are in its last second.
    vi.setSystemTime(10_000_000)
    for (let i = 0; i < 50; i++) await searchAnswered(`conn_${i}`, 1)
    expect(pacedConnections()).toBeGreaterThanOrEqual(50)
    await pass(1500)
    await searchAnswered('conn_late', 1)
    expect(pacedConnections()).toBe(1)
  })

  it('still spaces one connection: a fifth search in the same second waits for the first to leave it', async () => {
    vi.setSystemTime(20_000_000)
    await searchAnswered('conn_busy', 4)
    const fifth = watch(paceSearch('conn_busy', 10))
    await pass(999)
    expect(fifth()).toBe(false)
    await pass(2)
    expect(fifth()).toBe(true)
  })

  it('counts a search until a second after its answer, not after its sending: HubSpot counts it on arrival', async () => {
    vi.setSystemTime(30_000_000)
    const first = await paceSearch('conn_slow', 10)
    await pass(100)
    await searchAnswered('conn_slow', 3)
    // The first search's answer takes 800 ms: a second after its sending, it still holds its place.
    await pass(700)
    first()
    await pass(201)
    const fifth = watch(paceSearch('conn_slow', 10))
    await pass(50)
    expect(fifth()).toBe(false)
    // It goes when the three answered ones leave HubSpot's second, a second after their answers.
    await pass(50)
    expect(fifth()).toBe(true)
  })

  it('holds a search back while four are unanswered, however long ago they were sent', async () => {
    vi.setSystemTime(40_000_000)
    const open = await Promise.all([1, 2, 3, 4].map(() => paceSearch('conn_open', 10)))
    const fifth = watch(paceSearch('conn_open', 10))
    await pass(5000)
    expect(fifth()).toBe(false)
    open[2]!()
    await pass(999)
    expect(fifth()).toBe(false)
    await pass(2)
    expect(fifth()).toBe(true)
    for (const done of open) done()
  })

  it("counts two connections to one HubSpot account together: the search limit is the account's", async () => {
    // "rate limited to five requests per second per account" (search guide, "Limits").
    const api = 'https://api.hubapi.com'
    const a = searchPaceKey('conn_a', api, { portal_id: '4815162' })
    const b = searchPaceKey('conn_b', api, { portal_id: '4815162' })
    expect(a).toBe(b)
    expect(searchPaceKey('conn_c', api, { portal_id: '42' })).not.toBe(a)
    // A connection whose own server claims that account shares nothing with it.
    expect(searchPaceKey('conn_e', 'https://hubspot.example.net', { portal_id: '4815162' })).not.toBe(a)
    // Before verification has kept the account, each connection is paced on its own.
    expect(searchPaceKey('conn_d', api, {})).toBe('conn_d')
    vi.setSystemTime(50_000_000)
    await searchAnswered(a, 2)
    await searchAnswered(b, 2)
    const fifth = watch(paceSearch(b, 10))
    await pass(999)
    expect(fifth()).toBe(false)
    await pass(2)
    expect(fifth()).toBe(true)
  })
})
