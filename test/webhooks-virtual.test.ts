import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as registry from '../src/integrations/registry.js'
import { MemoryShortError } from '../src/outbound/heap-guard.js'
import type { FakeProvider } from './support/fake-integration.js'
import { type Harness, startHarness } from './support/harness.js'
import { storeKinds } from './support/stores.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

// The registry of this test offers an in-memory provider whose data the test changes at will.
vi.mock('../src/integrations/registry.js', async () => {
  const { FakeProvider, fakeIntegration } = await import('./support/fake-integration.js')
  const fakeProvider = new FakeProvider()
  const fake = fakeIntegration(fakeProvider)
  return {
    INTEGRATIONS: [fake],
    integrationOf: (t: string) => (t === 'fake' ? fake : undefined),
    fakeProvider,
  }
})
const provider = (registry as unknown as { fakeProvider: FakeProvider }).fakeProvider

interface WebhookView {
  id: string
  is_healthy: boolean
  webhook_type: string
  connection_id: string
  event: string
  object_type: string
  hook_url: string
  interval: number
  checked_at?: string
}

/** Long enough that no check happens on its own during a test: checks come from the trigger endpoint. */
const NEVER = 100_000

describe.each(storeKinds())('webhooks end to end on %s', (store) => {
  let h: Harness
  let receiver: WebhookReceiver
  let connectionId: string

  const createWebhook = async (body: Record<string, unknown>, includeAll = false) => {
    const res = await h.api<WebhookView>('POST', '/unified/webhook', {
      body: { connection_id: connectionId, hook_url: receiver.url, interval: NEVER, ...body },
      ...(includeAll ? { query: { include_all: 'true' } } : {}),
    })
    expect(res.status, res.text).toBe(200)
    return res.body
  }
  const webhook = async (id: string) => (await h.api<WebhookView>('GET', `/unified/webhook/${id}`)).body
  /** Waits until the webhook's first check (baseline or backfill) is committed. */
  const checked = async (id: string, after?: string) =>
    receiver
      .waitFor(() => false, 0)
      .catch(async () => {
        const deadline = Date.now() + 15_000
        for (;;) {
          const w = await webhook(id)
          if (w.checked_at && (!after || w.checked_at > after)) return w
          if (Date.now() > deadline) throw new Error(`webhook ${id} was never checked`)
          await new Promise((r) => setTimeout(r, 25))
        }
      })
  const trigger = async (id: string) => {
    const before = (await webhook(id)).checked_at
    const res = await h.api('PUT', `/unified/webhook/${id}/trigger`)
    expect(res.status).toBe(200)
    await checked(id, before)
  }

  beforeAll(async () => {
    h = await startHarness(store)
    receiver = await startWebhookReceiver(h.secret)
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'fake', auth: { token: 't' }, external_xref: 'customer-7' },
    })
    expect(conn.status, conn.text).toBe(200)
    connectionId = conn.body.id
  })
  afterAll(async () => {
    await h?.close()
    await receiver?.close()
  })

  describe('the webhook API', () => {
    it('creates, reads, lists, changes and removes a webhook with the SDK model', async () => {
      const created = await createWebhook({
        object_type: 'analytics_visitor',
        event: 'updated',
        fields: 'name',
      })
      expect(created).toMatchObject({
        connection_id: connectionId,
        object_type: 'analytics_visitor',
        event: 'updated',
        webhook_type: 'virtual',
        integration_type: 'fake',
        environment: 'Production',
        is_healthy: true,
        is_paused: false,
        fields: 'name',
        page_max_limit: 100,
      })
      expect(JSON.stringify(created)).not.toContain('null')
      expect((await h.api('GET', `/unified/webhook/${created.id}`)).body).toMatchObject({ id: created.id })

      const listed = await h.api<WebhookView[]>('GET', '/unified/webhook', {
        query: { connection_id: connectionId, object: 'analytics_visitor', is_healthy: 'true' },
      })
      expect(listed.body.map((w) => w.id)).toContain(created.id)
      const none = await h.api<WebhookView[]>('GET', '/unified/webhook', {
        query: { object: 'analytics_report' },
      })
      expect(none.body).toEqual([])

      // The SDK sends the whole webhook on PATCH, read-only fields included.
      const patched = await h.api<WebhookView>('PATCH', `/unified/webhook/${created.id}`, {
        body: { ...created, hook_url: `${receiver.url}?v=2`, interval: 5 },
      })
      expect(patched.status, patched.text).toBe(200)
      expect(patched.body).toMatchObject({ hook_url: `${receiver.url}?v=2`, interval: 5, event: 'updated' })
      const changedEvent = await h.api('PUT', `/unified/webhook/${created.id}`, {
        body: { ...created, event: 'created' },
      })
      expect(changedEvent.status).toBe(400)
      expect(changedEvent.text).toContain('event cannot change')

      expect((await h.api('DELETE', `/unified/webhook/${created.id}`)).status).toBe(200)
      expect((await h.api('GET', `/unified/webhook/${created.id}`)).status).toBe(404)
    })

    it('refuses what cannot be watched, saying why', async () => {
      const cases: [Record<string, unknown>, number, RegExp][] = [
        [{ object_type: 'analytics_visitor' }, 400, /'event' is required/],
        [
          { object_type: 'analytics_visitor', event: 'removed' },
          400,
          /event must be one of created, updated, deleted/,
        ],
        [{ object_type: 'hris_paycheck', event: 'created' }, 400, /not served here.*analytics_visitor/],
        [{ object_type: 'hris_employee', event: 'created' }, 501, /cannot list hris_employee/],
        [{ object_type: 'analytics_event', event: 'deleted' }, 400, /cannot detect deleted analytics_event/],
        [{ object_type: 'analytics_session', event: 'created' }, 501, /cannot list analytics_session/],
        [{ object_type: 'analytics_visitor', event: 'created', interval: 0 }, 400, /interval/],
        // A year of minutes at most: further made the next check a date JavaScript cannot write (every check
        // of the webhook failed) and, on PostgreSQL, overflowed the column (a 500).
        [
          { object_type: 'analytics_visitor', event: 'created', interval: 525_601 },
          400,
          /interval must be an integer from 1 to 525600/,
        ],
        [{ object_type: 'analytics_visitor', event: 'created', interval: 1e300 }, 400, /interval/],
        [
          { object_type: 'analytics_visitor', event: 'created', fields: 'bogus' },
          400,
          /unknown field 'bogus'/,
        ],
        [{ object_type: 'analytics_visitor', event: 'created', filters: { colour: 'red' } }, 400, /colour/],
        [{ object_type: 'analytics_visitor', event: 'created', hook_url: 'ftp://x.example/' }, 400, /http/],
        [
          { object_type: 'analytics_visitor', event: 'created', hook_url: 'http://10.0.0.8/h' },
          400,
          /private/,
        ],
        [
          { object_type: 'analytics_visitor', event: 'created', hook_url: 'http://169.254.169.254/' },
          400,
          /link-local/,
        ],
        [
          {
            object_type: 'analytics_event',
            event: 'created',
            webhook_type: 'virtual',
            connection_id: 'cn_na_nope',
          },
          404,
          /not found/,
        ],
      ]
      for (const [body, status, message] of cases) {
        const res = await h.api('POST', '/unified/webhook', {
          body: { connection_id: connectionId, hook_url: receiver.url, ...body },
        })
        expect(res.status, `${JSON.stringify(body)} -> ${res.text}`).toBe(status)
        expect(res.text).toMatch(message)
      }
    })

    it('names the first few unknown filters and how many more, not every one of 60,000', async () => {
      const filters = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 'x']))
      filters[`k${'x'.repeat(5000)}`] = 'x'
      const res = await h.api<{ message: string }>('POST', '/unified/webhook', {
        body: {
          connection_id: connectionId,
          hook_url: receiver.url,
          object_type: 'analytics_visitor',
          event: 'created',
          filters,
        },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toMatch(
        /^filters: k0, k1, k2, k3, k4, k5, k6, k7, k8, k9 and 59,991 more not a filter of analytics_visitor; allowed: /,
      )
      expect(res.text.length).toBeLessThan(1000)
      // One long name is cut too.
      const long = await h.api<{ message: string }>('POST', '/unified/webhook', {
        body: {
          connection_id: connectionId,
          hook_url: receiver.url,
          object_type: 'analytics_visitor',
          event: 'created',
          filters: { ['y'.repeat(5000)]: 'x' },
        },
      })
      expect(long.status).toBe(400)
      expect(long.body.message).toContain(`filters: ${'y'.repeat(64)}… not a filter`)
    })

    it("answers 404 for another workspace's webhook, whatever the operation", async () => {
      const mine = await createWebhook({ object_type: 'analytics_property', event: 'created' })
      const other = await h.otherWorkspace()
      for (const [method, path] of [
        ['GET', `/unified/webhook/${mine.id}`],
        ['PUT', `/unified/webhook/${mine.id}`],
        ['DELETE', `/unified/webhook/${mine.id}`],
        ['PUT', `/unified/webhook/${mine.id}/trigger`],
        ['PATCH', `/unified/webhook/${mine.id}/trigger`],
      ] as const) {
        const res = await h.api(method, path, {
          key: other.apiKey,
          ...(method === 'PUT' && !path.endsWith('trigger') ? { body: { ...mine } } : {}),
        })
        expect(res.status, `${method} ${path}`).toBe(404)
      }
      expect((await h.api<unknown[]>('GET', '/unified/webhook', { key: other.apiKey })).body).toEqual([])
      expect((await webhook(mine.id)).id).toBe(mine.id)
      await h.api('DELETE', `/unified/webhook/${mine.id}`)
    })
  })

  describe('virtual webhooks', () => {
    it('backfills every existing record in signed pages of page_max_limit: INITIAL-PARTIAL, then INITIAL-COMPLETE', async () => {
      provider.properties.clear()
      for (let i = 0; i < 25; i++)
        provider.put(provider.properties, `prop-${String(i).padStart(2, '0')}`, `P${i}`)
      const w = await createWebhook(
        { object_type: 'analytics_property', event: 'created', page_max_limit: 10 },
        true,
      )
      await receiver.waitFor(() => receiver.accepted(w.id).length >= 3, 15_000, 'three backfill pages')
      const pages = receiver.accepted(w.id)
      expect(pages.map((d) => [d.type, d.data.length])).toEqual([
        ['INITIAL-PARTIAL', 10],
        ['INITIAL-PARTIAL', 10],
        ['INITIAL-COMPLETE', 5],
      ])
      expect(new Set(pages.flatMap((d) => d.data.map((r) => r.id))).size).toBe(25)
      expect(pages[0]!.body).toMatchObject({
        external_xref: 'customer-7',
        webhook: { id: w.id, connection_id: connectionId },
      })
      expect(receiver.badSignatures).toEqual([])
      await h.api('DELETE', `/unified/webhook/${w.id}`)
    })

    it('detects created, updated and deleted records by fingerprint when the provider has no updated_gte', async () => {
      provider.properties.clear()
      provider.put(provider.properties, 'keep', 'Keep')
      provider.put(provider.properties, 'change', 'Before')
      provider.put(provider.properties, 'remove', 'Remove')
      const hooks = {
        created: await createWebhook({ object_type: 'analytics_property', event: 'created' }),
        updated: await createWebhook({ object_type: 'analytics_property', event: 'updated' }),
        deleted: await createWebhook({ object_type: 'analytics_property', event: 'deleted' }),
      }
      for (const w of Object.values(hooks)) await checked(w.id)
      // The baseline check delivers nothing: nothing changed yet.
      for (const w of Object.values(hooks)) expect(receiver.accepted(w.id)).toEqual([])

      provider.put(provider.properties, 'new', 'New')
      provider.put(provider.properties, 'change', 'After')
      provider.properties.delete('remove')
      for (const w of Object.values(hooks)) await trigger(w.id)
      await receiver.waitFor(
        () => Object.values(hooks).every((w) => receiver.accepted(w.id).length === 1),
        15_000,
        'one delivery per event',
      )
      const only = (id: string) => receiver.accepted(id).flatMap((d) => d.data)
      expect(only(hooks.created.id).map((r) => r.id)).toEqual(['new'])
      expect(only(hooks.updated.id)).toMatchObject([{ id: 'change', name: 'After' }])
      expect(only(hooks.deleted.id)).toEqual([{ id: 'remove' }])
      expect(receiver.accepted(hooks.created.id)[0]!.type).toBe('VIRTUAL')

      // Nothing changed since: another check delivers nothing.
      for (const w of Object.values(hooks)) await trigger(w.id)
      await new Promise((r) => setTimeout(r, 200))
      for (const w of Object.values(hooks)) expect(receiver.accepted(w.id)).toHaveLength(1)
      for (const w of Object.values(hooks)) await h.api('DELETE', `/unified/webhook/${w.id}`)
    })

    it('reads only changed records with updated_gte when the provider supports it', async () => {
      provider.visitors.clear()
      provider.put(provider.visitors, 'v-old', 'Old')
      // The provider's clock and ours share a millisecond resolution: keep the baseline strictly after.
      await new Promise((r) => setTimeout(r, 5))
      const created = await createWebhook({ object_type: 'analytics_visitor', event: 'created' })
      const updated = await createWebhook({ object_type: 'analytics_visitor', event: 'updated' })
      await checked(created.id)
      await checked(updated.id)
      provider.put(provider.visitors, 'v-new', 'New')
      provider.put(provider.visitors, 'v-old', 'Old renamed')
      await trigger(created.id)
      await trigger(updated.id)
      await receiver.waitFor(
        () => receiver.accepted(created.id).length === 1 && receiver.accepted(updated.id).length === 1,
        15_000,
        'created and updated deliveries',
      )
      expect(receiver.accepted(created.id)[0]!.data.map((r) => r.id)).toEqual(['v-new'])
      expect(receiver.accepted(updated.id)[0]!.data).toMatchObject([{ id: 'v-old', name: 'Old renamed' }])
      await h.api('DELETE', `/unified/webhook/${created.id}`)
      await h.api('DELETE', `/unified/webhook/${updated.id}`)
    })

    it("delivers only the webhook's fields, and fetches a slow field only when fields names it", async () => {
      provider.visitors.clear()
      provider.put(provider.visitors, 'v-1', 'Ann')
      provider.slowCalls = 0
      const plain = await createWebhook(
        { object_type: 'analytics_visitor', event: 'created', fields: 'name' },
        true,
      )
      await receiver.waitFor(() => receiver.accepted(plain.id).length === 1, 15_000, 'backfill')
      expect(receiver.accepted(plain.id)[0]!.data).toEqual([{ id: 'v-1', name: 'Ann' }])
      const everything = await createWebhook({ object_type: 'analytics_visitor', event: 'created' }, true)
      await receiver.waitFor(() => receiver.accepted(everything.id).length === 1, 15_000, 'backfill')
      const full = receiver.accepted(everything.id)[0]!.data[0]!
      expect(full).toMatchObject({ id: 'v-1', name: 'Ann', email: 'v-1@example.com' })
      expect(full).not.toHaveProperty('raw')
      expect(full).not.toHaveProperty('total_events')
      expect(provider.slowCalls).toBe(0)

      const slow = await createWebhook(
        { object_type: 'analytics_visitor', event: 'created', fields: 'total_events,raw.plan' },
        true,
      )
      await receiver.waitFor(() => receiver.accepted(slow.id).length === 1, 15_000, 'backfill')
      expect(receiver.accepted(slow.id)[0]!.data).toEqual([
        { id: 'v-1', total_events: 7, raw: { plan: 'pro' } },
      ])
      expect(provider.slowCalls).toBeGreaterThan(0)
      for (const w of [plain, everything, slow]) await h.api('DELETE', `/unified/webhook/${w.id}`)
    })

    it('polls on its own every interval minutes', async () => {
      provider.visitors.clear()
      const w = await createWebhook({ object_type: 'analytics_visitor', event: 'created', interval: 1 })
      await checked(w.id)
      provider.put(provider.visitors, 'v-later', 'Later')
      await receiver.waitFor(
        () => receiver.accepted(w.id).length === 1,
        15_000,
        'a delivery without a trigger',
      )
      expect(receiver.accepted(w.id)[0]!.data.map((r) => r.id)).toEqual(['v-later'])
      const runs = (await h.api<{ runs?: string[] }>('GET', `/unified/webhook/${w.id}`)).body.runs ?? []
      expect(runs.length).toBeGreaterThanOrEqual(2)
      await h.api('DELETE', `/unified/webhook/${w.id}`)
    })

    it('tries a check refused for memory again at the next interval, without counting it against the webhook', async () => {
      provider.visitors.clear()
      const w = await createWebhook({ object_type: 'analytics_visitor', event: 'created', interval: 1 })
      await checked(w.id)
      const runsOf = async () =>
        (await h.api<{ runs?: string[] }>('GET', `/unified/webhook/${w.id}`)).body.runs?.length ?? 0
      const before = await runsOf()
      // What the transport throws while the process is short of memory, for every read of the interval.
      provider.failReadsWith = new MemoryShortError(75)
      try {
        // More failed checks than the webhook's unhealthy mark (3 in the test settings).
        const deadline = Date.now() + 15_000
        while ((await runsOf()) < before + 5 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50))
        expect(await runsOf()).toBeGreaterThanOrEqual(before + 5)
        expect((await webhook(w.id)).is_healthy).toBe(true)
      } finally {
        provider.failReadsWith = undefined
      }
      provider.put(provider.visitors, 'v-after', 'After')
      await receiver.waitFor(
        () => receiver.accepted(w.id).length === 1,
        15_000,
        'the check after memory came back',
      )
      await h.api('DELETE', `/unified/webhook/${w.id}`)
    })
  })

  describe('delivery', () => {
    it('retries a failing receiver with the same delivery, marks the webhook unhealthy, and recovers', async () => {
      provider.visitors.clear()
      const w = await createWebhook({ object_type: 'analytics_visitor', event: 'created' })
      await checked(w.id)
      let failing = true
      receiver.setResponder((d) => (d.webhookId === w.id && failing ? 503 : 200))
      provider.put(provider.visitors, 'v-retry', 'Retry')
      await trigger(w.id)
      await receiver.waitFor(
        () => receiver.deliveries.filter((d) => d.webhookId === w.id).length >= 3,
        15_000,
        'three failed attempts',
      )
      await receiver.waitFor(() => false, 0).catch(() => undefined)
      const deadline = Date.now() + 10_000
      while ((await webhook(w.id)).is_healthy && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25))
      expect((await webhook(w.id)).is_healthy).toBe(false)
      const unhealthyOnly = await h.api<WebhookView[]>('GET', '/unified/webhook', {
        query: { is_healthy: 'false' },
      })
      expect(unhealthyOnly.body.map((x) => x.id)).toEqual([w.id])
      const notes = await h.api<{ event: string; webhook_id?: string; description: string }[]>(
        'GET',
        '/unified/notification',
      )
      expect(notes.body.find((n) => n.event === 'WEBHOOK_UNHEALTHY')).toMatchObject({
        webhook_id: w.id,
        description: expect.stringContaining('503'),
      })

      failing = false
      await receiver.waitFor(
        () => receiver.accepted(w.id).length === 1,
        15_000,
        'the delivery after recovery',
      )
      const attempts = receiver.deliveries.filter((d) => d.webhookId === w.id)
      // Every attempt is the same delivery: same id, same nonce, same data; only the attempt number grows.
      expect(new Set(attempts.map((d) => d.deliveryId)).size).toBe(1)
      expect(new Set(attempts.map((d) => d.nonce)).size).toBe(1)
      expect(attempts.map((d) => d.attempt)).toEqual(attempts.map((_, i) => i + 1))
      const deadline2 = Date.now() + 10_000
      while (!(await webhook(w.id)).is_healthy && Date.now() < deadline2)
        await new Promise((r) => setTimeout(r, 25))
      expect((await webhook(w.id)).is_healthy).toBe(true)
      receiver.setResponder(undefined)
      await h.api('DELETE', `/unified/webhook/${w.id}`)
    })

    it("waits as long as a 429's retry-after asks, then delivers", async () => {
      provider.visitors.clear()
      const w = await createWebhook({ object_type: 'analytics_visitor', event: 'created' })
      await checked(w.id)
      let answered429 = false
      receiver.setResponder((d) => {
        if (d.webhookId !== w.id || answered429) return 200
        answered429 = true
        return { status: 429, headers: { 'retry-after': '1' } }
      })
      provider.put(provider.visitors, 'v-429', 'Busy')
      await trigger(w.id)
      await receiver.waitFor(() => receiver.accepted(w.id).length === 1, 15_000, 'delivery after 429')
      const [first, second] = receiver.deliveries.filter((d) => d.webhookId === w.id)
      expect(first!.answered).toBe(429)
      expect(second!.nonce).toBe(first!.nonce)
      receiver.setResponder(undefined)
      await h.api('DELETE', `/unified/webhook/${w.id}`)
    })
  })

  describe('native webhooks', () => {
    it('subscribes at the provider, accepts only its authenticated calls, delivers NATIVE, and unsubscribes', async () => {
      const w = await createWebhook({ object_type: 'analytics_event', event: 'created', fields: 'id,name' })
      expect(w.webhook_type).toBe('native')
      expect(provider.subscriptions.size).toBe(1)
      const [externalId, sub] = [...provider.subscriptions][0]!
      expect(sub!.url).toBe(`http://127.0.0.1/native-webhooks/${w.id}`)
      const push = (authorization: string) =>
        h.api('POST', `/native-webhooks/${w.id}`, {
          key: null,
          headers: { authorization },
          body: { events: [{ uuid: 'e-1', event: '$pageview', ts: '2025-01-02T03:04:05Z' }] },
        })
      expect((await push('Bearer wrong')).status).toBe(401)
      const accepted = await push(`Bearer ${sub!.secret}`)
      expect(
        accepted.status,
        h
          .logs()
          .split('\n')
          .filter((l) => l.includes('"level":50'))
          .join('\n'),
      ).toBe(200)
      // A provider labelling its JSON as text/plain is read the same (the API itself reads JSON only).
      const asText = await fetch(`${h.url}/native-webhooks/${w.id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sub!.secret}`, 'content-type': 'text/plain' },
        body: JSON.stringify({ events: [] }),
      })
      expect(asText.status).toBe(200)
      await receiver.waitFor(() => receiver.accepted(w.id).length === 1, 15_000, 'native delivery')
      expect(receiver.accepted(w.id)[0]).toMatchObject({
        type: 'NATIVE',
        data: [{ id: 'e-1', name: '$pageview' }],
      })
      expect((await h.api('PUT', `/unified/webhook/${w.id}/trigger`)).status).toBe(400)
      await h.api('DELETE', `/unified/webhook/${w.id}`)
      expect(provider.subscriptions.has(externalId!)).toBe(false)
      expect((await push(`Bearer ${sub!.secret}`)).status).toBe(404)
    })

    it('acknowledges a push of records nested too deep to write out, delivers nothing and says why', async () => {
      const w = await createWebhook({ object_type: 'analytics_event', event: 'created', fields: 'id,raw' })
      const sub = [...provider.subscriptions.values()].find((x) => x.url.endsWith(`/${w.id}`))!
      // 50,000 levels (100 KB): JSON.parse reads it; shaping and writing it out overflow the stack.
      const body = `{"events":[{"uuid":"e-deep","event":"x","ts":"2025-01-02T03:04:05Z","deep":${'['.repeat(50_000)}${']'.repeat(50_000)}}]}`
      for (let i = 0; i < 3; i++) {
        const pushed = await fetch(`${h.url}/native-webhooks/${w.id}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sub.secret}`, 'content-type': 'application/json' },
          body,
        })
        // Acknowledged: a provider sends again whatever it did not get a 2xx for, and this cannot change.
        expect(pushed.status).toBe(200)
      }
      expect((await webhook(w.id)).is_healthy).toBe(false)
      const notes = await h.api<{ event: string; webhook_id?: string; description: string }[]>(
        'GET',
        '/unified/notification',
      )
      expect(
        notes.body.find((n) => n.event === 'WEBHOOK_UNHEALTHY' && n.webhook_id === w.id)?.description,
      ).toContain(
        'the provider answered data nested deeper than Unigate can write out (thousands of levels); not passed on',
      )
      expect(receiver.accepted(w.id)).toEqual([])
      await h.api('DELETE', `/unified/webhook/${w.id}`)
    })

    it('with include_all, is not due for its backfill until its subscription is made', async () => {
      // Due before that, another process's poller could claim it and deliver records for a webhook whose
      // creation then fails (a refused subscription removes it).
      const duringSubscription: (string | null)[] = []
      provider.whileSubscribing = async () => {
        const rows = await h.services.db.selectFrom('webhooks').select(['id', 'next_check_at']).execute()
        const stored = rows.filter((r) => !known.has(r.id))
        duringSubscription.push(...stored.map((r) => r.next_check_at))
      }
      const known = new Set(
        (await h.services.db.selectFrom('webhooks').select('id').execute()).map((r) => r.id),
      )
      try {
        const w = await createWebhook({ object_type: 'analytics_event', event: 'created' }, true)
        expect(w.webhook_type).toBe('native')
        expect(duringSubscription).toEqual([null])
        // Once subscribed, the backfill runs.
        await checked(w.id)
        expect((await webhook(w.id)).checked_at).toBeDefined()
        await h.api('DELETE', `/unified/webhook/${w.id}`)
      } finally {
        provider.whileSubscribing = undefined
      }
    })
  })

  it('removing a connection removes its webhooks and their provider subscriptions', async () => {
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: { integration_type: 'fake', auth: { token: 't2' } },
    })
    const body = { connection_id: conn.body.id, hook_url: receiver.url, interval: NEVER }
    const virtual = await h.api<WebhookView>('POST', '/unified/webhook', {
      body: { ...body, object_type: 'analytics_visitor', event: 'created' },
    })
    const native = await h.api<WebhookView>('POST', '/unified/webhook', {
      body: { ...body, object_type: 'analytics_event', event: 'created' },
    })
    const subscriptions = provider.subscriptions.size
    expect((await h.api('DELETE', `/unified/connection/${conn.body.id}`)).status).toBe(200)
    expect((await h.api('GET', `/unified/webhook/${virtual.body.id}`)).status).toBe(404)
    expect((await h.api('GET', `/unified/webhook/${native.body.id}`)).status).toBe(404)
    expect(provider.subscriptions.size).toBe(subscriptions - 1)
  })
})
