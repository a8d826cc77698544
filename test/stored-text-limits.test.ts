import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { storeKinds } from './support/stores.js'

vi.mock('../src/integrations/registry.js', async () => {
  const { FakeProvider, fakeIntegration } = await import('./support/fake-integration.js')
  const fake = fakeIntegration(new FakeProvider())
  return { INTEGRATIONS: [fake], integrationOf: (t: string) => (t === 'fake' ? fake : undefined) }
})

/**
 * Text a key holder stores once is read back on every list, kept in every process's connection cache, and
 * (external_xref, environment) copied into the API-call record of every later call on the connection. Up to
 * the 1 MiB body limit each, 100 connections made one connection list 100 MB, and each cheap call on such a
 * connection wrote a megabyte to the call log. So stored text has the caps the authorization flow already
 * applies to the same values.
 */
describe.each(storeKinds())('text a workspace stores is bounded, on %s', (store) => {
  let h: Harness
  let connectionId: string
  beforeAll(async () => {
    h = await startHarness(store)
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'fake', auth: { token: 't' } },
    })
    expect(conn.status, conn.text).toBe(200)
    connectionId = conn.body.id
  })
  afterAll(async () => h?.close())

  const long = (n: number) => 'x'.repeat(n)

  it('refuses a connection external_xref over 256 or environment over 64 characters, naming the field', async () => {
    for (const [field, limit] of [
      ['external_xref', 256],
      ['environment', 64],
    ] as const) {
      const created = await h.api<{ message: string }>('POST', '/unified/connection', {
        body: { integration_type: 'fake', auth: { token: 't' }, [field]: long(limit + 1) },
      })
      expect(created.status, created.text).toBe(400)
      expect(created.body.message).toContain(field)
      expect(created.body.message).toContain(String(limit))
      const patched = await h.api<{ message: string }>('PATCH', `/unified/connection/${connectionId}`, {
        body: { [field]: long(limit + 1) },
      })
      expect(patched.status, patched.text).toBe(400)
      expect(patched.body.message).toContain(field)
      const atLimit = await h.api<Record<string, unknown>>('PATCH', `/unified/connection/${connectionId}`, {
        body: { [field]: long(limit) },
      })
      expect(atLimit.status, atLimit.text).toBe(200)
      expect(atLimit.body[field]).toBe(long(limit))
    }
    const rows = await h.services.db.selectFrom('connections').select('external_xref').execute()
    expect(Math.max(...rows.map((r) => r.external_xref?.length ?? 0))).toBe(256)
  })

  it('refuses a webhook hook_url, fields or filter value over its cap, naming the field', async () => {
    const base = { connection_id: connectionId, object_type: 'analytics_visitor', event: 'created' }
    const hook = 'https://hooks.example.com/'
    for (const [body, field] of [
      [{ ...base, hook_url: hook + long(2048) }, 'hook_url'],
      [{ ...base, hook_url: hook, fields: `id,${long(4096)}` }, 'fields'],
      [{ ...base, hook_url: hook, filters: { query: long(1025) } }, 'filters'],
    ] as const) {
      const res = await h.api<{ message: string }>('POST', '/unified/webhook', { body })
      expect(res.status, res.text).toBe(400)
      expect(res.body.message).toContain(field)
    }
    expect((await h.api<unknown[]>('GET', '/unified/webhook')).body).toEqual([])
  })

  it('refuses a workspace name over 256 characters', async () => {
    const res = await h.api<{ message: string }>('PATCH', '/unified/workspace', { body: { name: long(257) } })
    expect(res.status, res.text).toBe(400)
    expect(res.body.message).toContain('name')
  })
})
