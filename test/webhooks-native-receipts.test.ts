import { afterEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../src/services.js'
import { commitNativeDeliveries } from '../src/webhooks/native-store.js'
import { deliveryPages } from '../src/webhooks/pages.js'
import { testConfig } from './support/config.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'

/**
 * A provider call named by itself (BambooHR's signature) is stored once on either store, whichever process
 * receives the copy: the receipt and the deliveries are written in one transaction.
 */
describe.each(storeKinds())('native call receipts on %s', (store) => {
  let services: Services | undefined
  let schema: string | undefined
  afterEach(async () => {
    await services?.close()
    if (schema) await dropSchema(schema)
  })

  it('stores a named call once until its receipt expires, and an unnamed call every time', async () => {
    schema = store === 'postgres' ? uniqueSchema() : undefined
    services = await createServices(testConfig(store), {
      background: false,
      ...(schema ? { pgSchema: schema } : {}),
    })
    const { workspace } = await services.workspaces.create('receipts')
    const now = '2026-05-21T14:00:00.000Z'
    await services.connectionStore.insert({
      id: 'cn_receipts',
      workspace_id: workspace.id,
      integration_type: 'bamboohr',
      categories: ['hris'],
      permissions: ['hris_employee_read', 'webhook'],
      environment: 'Production',
      credentials: {},
      settings: {},
      created_at: now,
      updated_at: now,
    })
    const webhook = await services.webhooks.store.insert({
      id: 'wh_receipts',
      workspace_id: workspace.id,
      connection_id: 'cn_receipts',
      integration_type: 'bamboohr',
      object_type: 'hris_employee',
      event: 'created',
      hook_url: 'http://127.0.0.1:9/hook',
      interval: 60,
      page_max_limit: 100,
      filters: {},
      webhook_type: 'native',
      environment: 'Production',
      include_all: false,
      is_paused: false,
      created_at: now,
    })
    const db = services.db
    const pages = deliveryPages([{ id: '7' }], 100, 'NATIVE')
    const receipt = { callId: 'sig-1', expiresAt: '2026-05-21T19:20:00.000Z' }
    const stored = () =>
      db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhook.id).execute()

    expect(await commitNativeDeliveries(db, webhook.id, pages, now, receipt)).toBe(true)
    expect(await commitNativeDeliveries(db, webhook.id, pages, now, receipt)).toBe(false)
    expect(await stored()).toHaveLength(1)
    expect(await commitNativeDeliveries(db, webhook.id, pages, now, { ...receipt, callId: 'sig-2' })).toBe(
      true,
    )
    expect(await commitNativeDeliveries(db, webhook.id, pages, now)).toBe(true)
    expect(await stored()).toHaveLength(3)
    // Once a copy could no longer authenticate, its receipt is dropped.
    const later = '2026-05-21T19:20:00.001Z'
    expect(await commitNativeDeliveries(db, webhook.id, pages, later, { ...receipt, callId: 'sig-3' })).toBe(
      true,
    )
    const left = await db.selectFrom('native_call_receipts').select('call_id').execute()
    expect(left.map((r) => r.call_id)).toEqual(['sig-3'])
  })
})
