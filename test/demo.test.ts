import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_PROVIDERS, plainListable } from '../demo/providers.js'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import { type Harness, startHarness } from './support/harness.js'

type Integration = { type: string; support: Record<string, { methods: Record<string, boolean> }> }

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
      const listable = plainListable(integration!.support)
      const path = provider.probe
        ? `analytics/${provider.probe.object}`
        : `${listable?.category}/${listable?.path}`
      expect(provider.probe ?? listable, `${type} lists something`).toBeDefined()
      const query = { limit: 2, ...provider.probe?.query }
      const [category, object] = path.split('/')
      const res = await h.api<unknown[]>('GET', `/${category}/${created.body.id}/${object}`, { query })
      expect(res.status, res.text).toBe(200)
      expect(Array.isArray(res.body)).toBe(true)
    },
  )
})
