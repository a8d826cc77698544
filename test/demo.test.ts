import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_PROVIDERS } from '../demo/providers.js'
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
      const listable = ['analytics_property', 'analytics_visitor', 'analytics_session'].find(
        (objectType) => integration!.support[objectType]?.methods.list,
      )
      const object = provider.probe?.object ?? listable?.replace('analytics_', '')
      expect(object, `${type} lists something`).toBeDefined()
      const query = { limit: 2, ...provider.probe?.query }
      const res = await h.api<unknown[]>('GET', `/analytics/${created.body.id}/${object}`, { query })
      expect(res.status, res.text).toBe(200)
      expect(Array.isArray(res.body)).toBe(true)
      // The demo's data reaches today, so its first read shows records, as the demo's printed command does.
      expect(res.body.length, res.text).toBeGreaterThan(0)
    },
  )
})
