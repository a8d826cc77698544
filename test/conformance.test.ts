import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSharedEmulators, DEMO_PROVIDERS, type StartedEmulator } from '../demo/providers.js'
import { integrationOf } from '../src/integrations/registry.js'
import { type IntegrationSupport, supportMatrix } from '../src/integrations/support.js'
import { modelOf } from '../src/models/index.js'
import { type ApiResponse, type Harness, startHarness } from './support/harness.js'

/**
 * One call, any provider: the same unified calls, with no provider knowledge, checked on every integration
 * of the demo and every object of its support matrix (both generated from the definitions). A new
 * integration is covered by adding it to demo/providers.ts.
 */

type Rec = Record<string, unknown> & { id?: string }

/**
 * Real failures this suite finds that cannot be fixed here (they need work in a provider folder). Each
 * entry must still fail: a check that starts passing fails the suite until its entry is removed.
 */
const KNOWN_FAILURES: readonly {
  integration: string
  object: string
  check: string
  reason: string
}[] = [
  {
    integration: 'matomo',
    object: 'analytics_event',
    check: 'created id round-trips',
    reason:
      'the Tracking API answers no visit id, so a created event gets a random id that get cannot find (src/integrations/matomo)',
  },
  {
    integration: 'mixpanel',
    object: 'analytics_visitor',
    check: 'created id round-trips',
    reason:
      'Mixpanel applies profile writes asynchronously (within about a minute, emulated as 30 s), so a get right after create answers 404',
  },
  {
    integration: 'mixpanel',
    object: 'analytics_visitor',
    check: 'remove then get is 404',
    reason:
      'a remove right after create finds no profile yet (Mixpanel applies profile writes asynchronously) and answers 404',
  },
]

const known = (integration: string, object: string, check: string) =>
  KNOWN_FAILURES.find((f) => f.integration === integration && f.object === object && f.check === check)

/** Values for fields a provider requires on create, by unified field name (never by integration). */
function requiredValue(field: string, n: string, properties: readonly Rec[]): unknown {
  switch (field) {
    case 'property_id':
      return properties[0]?.id
    case 'parent_id':
      return properties.find((p) => typeof p.parent_id === 'string')?.parent_id
    case 'timezone':
      return 'Europe/Berlin'
    case 'name':
      return `conformance-${n}.example.com`
    case 'page_url':
      return `https://conformance-${n}.example.com/pricing`
    case 'raw.domain':
      return `conformance-${n}.example.com`
    case 'raw.ip':
      // A documentation address (RFC 5737): the visitor's own, which providers that count visitors need.
      return '203.0.113.7'
    default:
      return undefined
  }
}

/** A plain create body per object, as an SDK user would write it, plus what the matrix says is required. */
function createBody(object: string, support: IntegrationSupport, properties: readonly Rec[]): Rec {
  const n = Math.random().toString(36).slice(2, 8)
  const plain: Record<string, Rec> = {
    analytics_property: { name: `conformance-${n}.example.com` },
    analytics_event: { name: 'sign_up', event_type: 'SIGN_UP' },
    analytics_visitor: { name: `Conformance ${n}`, email: `conformance-${n}@example.com` },
    crm_contact: {
      first_name: 'Conformance',
      last_name: n,
      emails: [{ email: `conformance-${n}@example.com` }],
    },
  }
  const body: Rec = { ...plain[object] }
  for (const [field, mark] of Object.entries(support.outbound_fields ?? {})) {
    if (mark !== 'supported-required') continue
    const value = requiredValue(field, n, properties)
    if (field.startsWith('raw.')) body.raw = { ...(body.raw as Rec), [field.slice(4)]: value }
    else body[field] = value
  }
  return body
}

const required = (support: IntegrationSupport) =>
  Object.entries(support)
    .filter(([key, mark]) => key.startsWith('list_') && mark === 'supported-required')
    .map(([key]) => key.slice('list_'.length))

for (const provider of DEMO_PROVIDERS) {
  const type = provider.integrationType
  const integration = integrationOf(type)
  if (!integration) throw new Error(`demo provider ${type} has no integration`)
  const matrix = supportMatrix(integration)

  describe(`${integration.name} (${type})`, () => {
    let h: Harness
    let emulator: StartedEmulator
    let connection: string
    let properties: Rec[] = []
    const path = (object: string, id?: string) =>
      `/${modelOf(object)?.category}/${connection}/${modelOf(object)?.path}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`
    const listed = new Map<string, ApiResponse<Rec[]>>()

    beforeAll(async () => {
      h = await startHarness('sqlite')
      emulator = await provider.start()
      const created = await h.api<{ id: string }>('POST', '/unified/connection', {
        body: { integration_type: type, auth: emulator.auth },
      })
      expect(created.status, created.text).toBe(200)
      connection = created.body.id
      if (matrix.analytics_property?.methods.list) {
        const res = await h.api<Rec[]>('GET', path('analytics_property'))
        if (res.status === 200) properties = res.body
      }
    })
    afterAll(async () => {
      await emulator?.close()
      await h?.close()
      await closeSharedEmulators()
    })

    /** The list without parameters, asked once per object. */
    async function plainList(object: string): Promise<ApiResponse<Rec[]>> {
      const hit = listed.get(object)
      if (hit) return hit
      const res = await h.api<Rec[]>('GET', path(object))
      listed.set(object, res)
      return res
    }

    /**
     * The list the record checks run on: the plain one when it answers 200, else the same list in the
     * first property when the 400 asked for `property_id` (the suite picks from the property list, as a
     * caller would); undefined when the object cannot be listed without provider knowledge.
     */
    async function listing(
      object: string,
    ): Promise<{ query: Record<string, string>; res: ApiResponse<Rec[]> } | undefined> {
      const plain = await plainList(object)
      if (plain.status === 200) return { query: {}, res: plain }
      const first = properties[0]?.id
      if (plain.status !== 400 || typeof first !== 'string' || !plain.text.includes('property_id')) return
      const query = { property_id: first }
      const key = `${object}?property_id`
      const res = listed.get(key) ?? (await h.api<Rec[]>('GET', path(object), { query }))
      listed.set(key, res)
      expect(res.status, res.text).toBe(200)
      return { query, res }
    }

    function check(object: string, name: string, run: () => Promise<void>) {
      const failure = known(type, object, name)
      if (!failure) return it(`${object}: ${name}`, run)
      return it(`${object}: ${name} (known failure: ${failure.reason})`, async () => {
        await expect(run(), 'this known failure now passes: remove it from KNOWN_FAILURES').rejects.toThrow()
      })
    }

    for (const [object, support] of Object.entries(matrix)) {
      if (!support.methods.list) continue

      check(object, 'list without parameters', async () => {
        const res = await plainList(object)
        expect([200, 400, 501], res.text).toContain(res.status)
        if (res.status === 200) expect(Array.isArray(res.body)).toBe(true)
        if (res.status === 400) {
          const message = (res.body as unknown as { message: string }).message
          const named = required(support).filter((p) => message.includes(p))
          expect(named, `a 400 must name a parameter the matrix marks required: ${message}`).not.toEqual([])
          if (named.includes('property_id')) {
            for (const p of properties.slice(0, 20)) expect(message).toContain(String(p.id))
          }
        }
      })

      check(object, 'listed ids round-trip', async () => {
        const list = await listing(object)
        if (!list || !support.methods.get) return
        for (const record of list.res.body.slice(0, 3)) {
          expect(typeof record.id, JSON.stringify(record)).toBe('string')
          const got = await h.api<Rec>('GET', path(object, record.id as string))
          expect(got.status, got.text).toBe(200)
          expect(got.body.id).toBe(record.id)
        }
      })

      check(object, 'every record has an id', async () => {
        const list = await listing(object)
        for (const record of list?.res.body ?? []) {
          expect(typeof record.id, JSON.stringify(record)).toBe('string')
        }
      })

      check(object, 'pages are slices of a larger page', async () => {
        const list = await listing(object)
        if (!list) return
        const ids = async (query: Record<string, number>) => {
          const res = await h.api<Rec[]>('GET', path(object), {
            query: { ...list.query, ...query, fields: 'id' },
          })
          expect(res.status, res.text).toBe(200)
          return res.body.map((r) => r.id)
        }
        const whole = await ids({ limit: 4 })
        expect(await ids({ limit: 2, offset: 0 })).toEqual(whole.slice(0, 2))
        expect(await ids({ limit: 2, offset: 2 })).toEqual(whole.slice(2, 4))
      })

      check(object, 'fields=id returns only id', async () => {
        const list = await listing(object)
        if (!list) return
        const res = await h.api<Rec[]>('GET', path(object), {
          query: { ...list.query, fields: 'id', limit: 5 },
        })
        expect(res.status, res.text).toBe(200)
        for (const record of res.body) expect(Object.keys(record)).toEqual(['id'])
      })

      check(object, 'raw is an object when asked', async () => {
        const list = await listing(object)
        if (!list) return
        const res = await h.api<Rec[]>('GET', path(object), {
          query: { ...list.query, fields: 'id,raw', limit: 3 },
        })
        expect(res.status, res.text).toBe(200)
        for (const record of res.body) {
          expect(typeof record.raw).toBe('object')
          expect(Array.isArray(record.raw)).toBe(false)
        }
      })
    }

    for (const [object, support] of Object.entries(matrix)) {
      if (!support.methods.create) continue
      let created: Rec | undefined

      check(object, 'create with the plain body', async () => {
        const res = await h.api<Rec>('POST', path(object), {
          body: createBody(object, support, properties),
        })
        expect(res.status, res.text).toBe(200)
        expect(typeof res.body.id).toBe('string')
        // Where the provider needs a distinct id, a generated anonymous one comes back.
        if (integration.objects[object]?.anonymousVisitor) expect(typeof res.body.visitor_id).toBe('string')
        created = res.body
      })

      if (support.methods.get) {
        check(object, 'created id round-trips', async () => {
          expect(created, 'the create failed').toBeDefined()
          const got = await h.api<Rec>('GET', path(object, created?.id as string))
          expect(got.status, got.text).toBe(200)
          expect(got.body.id).toBe(created?.id)
        })
      }

      if (support.methods.remove && support.methods.get) {
        check(object, 'remove then get is 404', async () => {
          expect(created, 'the create failed').toBeDefined()
          const removed = await h.api('DELETE', path(object, created?.id as string))
          expect(removed.status, removed.text).toBeLessThan(300)
          const got = await h.api('GET', path(object, created?.id as string))
          expect(got.status, got.text).toBe(404)
        })
      }

      if (object === 'analytics_visitor' && matrix.analytics_property?.methods.list) {
        check(object, 'created in another property round-trips', async () => {
          const other = properties[1]
          if (!other) return
          const res = await h.api<Rec>('POST', path(object), {
            body: { ...createBody(object, support, properties), property_id: other.id },
          })
          expect(res.status, res.text).toBe(200)
          const id = res.body.id as string
          const got = await h.api<Rec>('GET', path(object, id))
          expect(got.status, got.text).toBe(200)
          expect(got.body.id).toBe(id)
          if (support.methods.patch) {
            const patched = await h.api<Rec>('PATCH', path(object, id), { body: { name: 'Renamed' } })
            expect(patched.status, patched.text).toBe(200)
            expect(patched.body.id).toBe(id)
          }
          if (support.methods.remove) {
            expect((await h.api('DELETE', path(object, id))).status).toBeLessThan(300)
            expect((await h.api('GET', path(object, id))).status).toBe(404)
          }
        })
      }
    }
  })
}
