import { randomUUID } from 'node:crypto'
import { bearerSecretMatches } from '../../src/integrations/native-auth.js'
import type { IntegrationDefinition, ListQuery } from '../../src/integrations/types.js'
import type { UnifiedRecord } from '../../src/models/index.js'
import type { Harness } from './harness.js'

export interface FakeRecord {
  id: string
  name: string
  email?: string
  created_at: string
  updated_at: string
  total_events?: number
}

/**
 * An in-memory provider for webhook tests (the real providers' emulators are used in the multi-process
 * tests): one object with `updated_gte`, one without (fingerprint comparison), one that pushes changes.
 */
export class FakeProvider {
  readonly visitors = new Map<string, FakeRecord>()
  readonly properties = new Map<string, FakeRecord>()
  readonly subscriptions = new Map<string, { url: string; secret: string; event: string }>()
  /** Extra provider calls made for the slow field. */
  slowCalls = 0
  listCalls = 0
  /** What a visitor list throws instead of answering, while set. */
  failReadsWith: Error | undefined
  /** Run while a native subscription is being made, before the provider answers. */
  whileSubscribing: (() => Promise<void>) | undefined
  private clock = 0

  /** Provider time follows the wall clock but moves forward on every change, so updated_at always grows. */
  private tick(): string {
    this.clock = Math.max(this.clock + 1, Date.now())
    return new Date(this.clock).toISOString()
  }

  put(map: Map<string, FakeRecord>, id: string, name: string): FakeRecord {
    const now = this.tick()
    const before = map.get(id)
    const record = {
      id,
      name,
      email: `${id}@example.com`,
      created_at: before?.created_at ?? now,
      updated_at: now,
    }
    map.set(id, record)
    return record
  }
}

function page(records: FakeRecord[], q: ListQuery): FakeRecord[] {
  const since = q.updated_gte?.getTime()
  return records
    .filter((r) => since === undefined || Date.parse(r.updated_at) >= since)
    .sort((a, b) => a.id.localeCompare(b.id))
    .slice(q.offset, q.offset + q.limit)
}

export function fakeIntegration(p: FakeProvider): IntegrationDefinition {
  const toUnified = (r: FakeRecord): UnifiedRecord => ({ ...r, raw: { ...r, plan: 'pro' } })
  return {
    type: 'fake',
    name: 'Fake',
    categories: ['analytics'],
    description: 'test provider',
    webUrl: 'https://example.com',
    apiDocsUrl: 'https://example.com/docs',
    auth: { kind: 'api_key', fields: [{ name: 'token', label: 'Token', secret: true, required: true }] },
    baseUrl: () => 'http://127.0.0.1:9',
    authHeaders: () => ({}),
    verify: async () => ({}),
    retry: { on: [], afterHeaders: [] },
    objects: {
      analytics_visitor: {
        async list(ctx, q) {
          p.listCalls++
          if (p.failReadsWith) throw p.failReadsWith
          return page([...p.visitors.values()], q).map((r) => {
            if (!ctx.fields.slow.has('total_events')) return toUnified(r)
            p.slowCalls++
            return toUnified({ ...r, total_events: 7 })
          })
        },
        listParams: ['updated_gte'],
        filters: [],
        slowFields: ['total_events'],
        listIsComplete: true,
      },
      analytics_property: {
        async list(_ctx, q) {
          p.listCalls++
          return page([...p.properties.values()], q).map(toUnified)
        },
        listParams: [],
        filters: ['parent_id'],
        listIsComplete: true,
      },
      analytics_event: {
        async list(_ctx, q) {
          return page([], q).map(toUnified)
        },
        listParams: ['updated_gte'],
        filters: [],
        nativeWebhooks: {
          events: ['created'],
          async subscribe(_ctx, request) {
            await p.whileSubscribing?.()
            const externalId = randomUUID()
            p.subscriptions.set(externalId, {
              url: request.url,
              secret: request.secret,
              event: request.event,
            })
            return { externalId }
          },
          async unsubscribe(_ctx, externalId) {
            p.subscriptions.delete(externalId)
          },
          // The fake signs nothing: its calls carry the subscription secret as a bearer token.
          authenticate: (call, secret) => bearerSecretMatches(call, secret),
          records(call) {
            const events =
              (call.body as { events?: { uuid: string; event: string; ts: string }[] }).events ?? []
            return events.map((e) => ({ id: e.uuid, name: e.event, created_at: new Date(e.ts), raw: e }))
          },
        },
      },
    },
  }
}

/**
 * What `vi.mock('../src/integrations/registry.js', …)` answers for a test of how the engine treats the pages
 * handlers return: the fake integration alone, whose property list answers `records()` marked as already
 * shaped (`shapedPage`) and whose visitor list answers the same records unmarked, whatever was asked.
 */
export async function fakeRegistryWithPages(records: () => UnifiedRecord[]) {
  const { shapedPage } = await import('../../src/engine/fields.js')
  const fake = fakeIntegration(new FakeProvider())
  const objects = {
    ...fake.objects,
    analytics_property: { ...fake.objects.analytics_property!, list: async () => shapedPage(records()) },
    analytics_visitor: { ...fake.objects.analytics_visitor!, list: async () => records() },
  }
  const integration: IntegrationDefinition = { ...fake, objects }
  return {
    INTEGRATIONS: [integration],
    integrationOf: (t: string) => (t === 'fake' ? integration : undefined),
  }
}

/** A connection of the fake integration in the harness's workspace: its id. */
export async function connectFake(h: Harness): Promise<string> {
  const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
    body: { integration_type: 'fake', auth: { token: 't' } },
  })
  if (conn.status !== 200) throw new Error(`the fake connection was refused: ${conn.text}`)
  return conn.body.id
}
