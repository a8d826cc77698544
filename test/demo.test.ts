import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { firstRead } from '../demo/first-read.js'
import { DEMO_PROVIDERS } from '../demo/providers.js'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import type { IntegrationSupport } from '../src/integrations/support.js'
import { type Harness, startHarness } from './support/harness.js'

type Integration = { type: string; support: Record<string, IntegrationSupport> }

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
      const [integration] = (await h.api<Integration[]>('GET', '/unified/integration', { query: { type } }))
        .body
      // A record list that needs no filter, or the provider's own probe when every list needs one.
      const read = firstRead(provider, integration!.support)
      expect(read, `${type} lists something`).toBeDefined()
      const query = { limit: 2, ...read?.query }
      const res = await h.api<unknown[]>('GET', read!.path(created.body.id), { query })
      expect(res.status, res.text).toBe(200)
      expect(Array.isArray(res.body)).toBe(true)
    },
  )
})
