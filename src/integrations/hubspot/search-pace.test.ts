import { describe, expect, it } from 'vitest'
import { pacedConnections, paceSearch } from './search-pace.js'

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
    let done = false
    const fifth = paceSearch('conn_busy', 10, now).then(() => {
      done = true
    })
    await new Promise((r) => setTimeout(r, 20))
    expect(done).toBe(false)
    // Once the clock has moved past the first search's second, the waiting one goes.
    t += 1001
    await fifth
    expect(done).toBe(true)
  })
})
