import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_PROVIDERS, demoRead } from '../demo/providers.js'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import { type Harness, startHarness } from './support/harness.js'

describe('the demo connects every integration to its emulator', () => {
  let h: Harness
  const running: { close(): Promise<void> }[] = []
  beforeAll(async () => {
    h = await startHarness('sqlite')
  })
  afterAll(async () => {
    await Promise.all(running.map((r) => r.close()))
    await h?.close()
  })

  it('has a demo provider for every registered integration', () => {
    expect(DEMO_PROVIDERS.map((p) => p.integrationType).sort()).toEqual(
      INTEGRATIONS.map((i) => i.type).sort(),
    )
  })

  it.each(DEMO_PROVIDERS.map((p) => [p.integrationType, p] as const))(
    '%s: connects and reads',
    async (type, provider) => {
      const emulator = await provider.start()
      running.push(emulator)
      const created = await h.api<{ id: string }>('POST', '/unified/connection', {
        body: { integration_type: type, auth: emulator.auth },
      })
      expect(created.status, created.text).toBe(200)
      // A record list that needs no filter, or the provider's own probe when every list needs one.
      const read = demoRead(provider, created.body.id)
      expect(read, `${type} lists something`).toBeDefined()
      const res = await h.api<unknown[]>('GET', `/${read?.path}`, { query: { limit: 2, ...read?.query } })
      expect(res.status, res.text).toBe(200)
      expect(Array.isArray(res.body)).toBe(true)
      // The demo's data reaches today, so its first read shows records, as the demo's printed command does.
      expect(res.body.length, res.text).toBeGreaterThan(0)
    },
  )
})
