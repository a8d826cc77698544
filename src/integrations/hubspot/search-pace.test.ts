import { describe, expect, it } from 'vitest'
import { pacedConnections, paceSearch, searchPaceKey } from './search-pace.js'

/** A fifth search of `key` in one second waits, and goes once `tick` moves the clock past that second. */
async function expectNextSecondWaited(key: string, now: () => number, tick: () => void) {
  let done = false
  const fifth = paceSearch(key, 10, now).then(() => {
    done = true
  })
  await new Promise((r) => setTimeout(r, 20))
  expect(done).toBe(false)
  tick()
  await fifth
  expect(done).toBe(true)
}

describe('paceSearch', () => {
  it('forgets connections that have not searched for a second, so the process does not keep one per connection', async () => {
    // A clock of its own, far from any other test's, so no other connection's searches are in its last second.
    let t = 10_000_000
    const now = () => t
    for (let i = 0; i < 50; i++) await paceSearch(`conn_${i}`, 1, now)
    expect(pacedConnections()).toBeGreaterThanOrEqual(50)
    t += 1500
    await paceSearch('conn_late', 1, now)
    expect(pacedConnections()).toBe(1)
  })

  it('still spaces one connection: a fifth search in the same second waits for the first to leave it', async () => {
    let t = 20_000_000
    const now = () => t
    for (let i = 0; i < 4; i++) await paceSearch('conn_busy', 10, now)
    // Once the clock has moved past the first search's second, the waiting one goes.
    await expectNextSecondWaited('conn_busy', now, () => {
      t += 1001
    })
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
    let t = 30_000_000
    const now = () => t
    for (let i = 0; i < 2; i++) await paceSearch(a, 10, now)
    for (let i = 0; i < 2; i++) await paceSearch(b, 10, now)
    await expectNextSecondWaited(b, now, () => {
      t += 1001
    })
  })
})
