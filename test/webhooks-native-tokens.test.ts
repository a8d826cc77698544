import { describe, expect, it } from 'vitest'
import { callTokenSeen, commitNativeDeliveries } from '../src/webhooks/native-store.js'
import { deliveryPages } from '../src/webhooks/pages.js'
import { useStoredWebhook } from './support/stored-webhook.js'
import { storeKinds } from './support/stores.js'

/**
 * A native call's one-time token (Lever's `token`) is stored with the call's deliveries in one transaction:
 * the same token, received twice (by one process or two at once), stores its deliveries once.
 */
describe.each(storeKinds())('one-time native call tokens on %s', (store) => {
  const storedWebhook = useStoredWebhook(store)

  async function nativeWebhook() {
    const { services, webhook } = await storedWebhook({
      name: 'tokens',
      integration_type: 'lever',
      categories: ['ats'],
      permissions: ['ats_application_read', 'webhook'],
      webhook: {
        object_type: 'ats_application',
        event: 'updated',
        interval: 0,
        page_max_limit: 100,
        webhook_type: 'native',
      },
    })
    return { s: services, webhookId: webhook.id }
  }

  const pagesOf = (id: string) => deliveryPages([{ id }], 100, 'NATIVE')

  it('stores a token once: a second call with it stores nothing, even when both commit at once', async () => {
    const { s, webhookId } = await nativeWebhook()
    const now = new Date().toISOString()
    const token = { token: 'a'.repeat(48), keepUntilMs: Date.now() + 60_000 }
    expect(await callTokenSeen(s.db, webhookId, token)).toBe(false)
    const results = await Promise.all([
      commitNativeDeliveries(s.db, webhookId, pagesOf('first'), now, token),
      commitNativeDeliveries(s.db, webhookId, pagesOf('second'), now, token),
    ])
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(await callTokenSeen(s.db, webhookId, token)).toBe(true)
    expect(await commitNativeDeliveries(s.db, webhookId, pagesOf('third'), now, token)).toBe(false)
    const stored = await s.webhooks.deliveries.byWebhook(webhookId)
    expect(stored).toHaveLength(1)
    // The token is kept as a hash, not as the provider sent it.
    const rows = await s.db.selectFrom('native_call_tokens').selectAll().execute()
    expect(JSON.stringify(rows)).not.toContain(token.token)
  })

  it('forgets tokens past their time when another call is stored, and stores a call without deliveries', async () => {
    const { s, webhookId } = await nativeWebhook()
    // One clock reading: with two, a millisecond passing between them left 'old' kept until exactly `now`.
    const nowMs = Date.now()
    const now = new Date(nowMs).toISOString()
    const old = { token: 'old', keepUntilMs: nowMs - 1 }
    expect(
      await commitNativeDeliveries(s.db, webhookId, [], new Date(nowMs - 10_000).toISOString(), old),
    ).toBe(true)
    expect(await callTokenSeen(s.db, webhookId, old)).toBe(true)
    const fresh = { token: 'fresh', keepUntilMs: Date.now() + 60_000 }
    expect(await commitNativeDeliveries(s.db, webhookId, [], now, fresh)).toBe(true)
    expect(await callTokenSeen(s.db, webhookId, old)).toBe(false)
    expect(await callTokenSeen(s.db, webhookId, fresh)).toBe(true)
    expect(await s.webhooks.deliveries.byWebhook(webhookId)).toEqual([])
  })
  it('stores a call of thousands of pages in one transaction (more rows than one SQLite statement can bind)', async () => {
    const { s, webhookId } = await nativeWebhook()
    const records = Array.from({ length: 3000 }, (_, i) => ({ id: `r${i}` }))
    const pages = deliveryPages(records, 1, 'NATIVE')
    expect(pages).toHaveLength(3000)
    expect(await commitNativeDeliveries(s.db, webhookId, pages, new Date().toISOString())).toBe(true)
    const stored = await s.webhooks.deliveries.byWebhook(webhookId)
    expect(stored).toHaveLength(3000)
  })
})
