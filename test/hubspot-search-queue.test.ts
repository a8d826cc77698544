import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HubspotEmulator, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { setSearchesPerSecond } from '../src/integrations/hubspot/search-pace.js'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectHubspot } from './support/hubspot.js'

/**
 * HubSpot searches are spaced per connection (search-pace.ts) before they are sent, so before they take the
 * connection's queue: a flood of searching lists waited there without bound, in memory, where every other
 * call of a busy connection answers 429 once UNIGATE_PROVIDER_CONNECTION_QUEUE calls wait.
 */
describe("a flooded HubSpot connection: searches waiting for their turn keep the connection's bound", () => {
  let h: Harness
  let emu: HubspotEmulator
  let conn: string
  let restorePace: () => void
  const queue = 2

  beforeAll(async () => {
    // One search a second here, so the searches below wait for their turn.
    restorePace = setSearchesPerSecond(1)
    emu = await startHubspotEmulator({ seed: 4, contacts: 20, searchLagMs: 0 })
    h = await startHarness('sqlite', {
      outbound: { ...testConfig('sqlite').outbound, connectionQueue: queue },
    })
    conn = await connectHubspot(h, emu)
  })
  afterAll(async () => {
    restorePace?.()
    await h?.close()
    await emu?.close()
  })

  it('sends one, lets UNIGATE_PROVIDER_CONNECTION_QUEUE wait, and answers 429 beyond them', async () => {
    const lists = Array.from({ length: 1 + queue + 2 }, () =>
      h.api<{ message: string }>('GET', `/crm/${conn}/contact`, {
        query: { updated_gte: '2000-01-01T00:00:00Z', limit: 5, fields: 'id' },
      }),
    )
    const answers = await Promise.all(lists)
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 429, 429])
    const refused = answers.find((a) => a.status === 429)!
    expect(refused.headers['retry-after']).toBe('1')
    expect(refused.body.message).toContain('HubSpot')
    expect(refused.body.message).toContain(`UNIGATE_PROVIDER_CONNECTION_QUEUE=${queue}`)
  })
})
