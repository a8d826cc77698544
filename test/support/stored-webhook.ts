import { afterEach } from 'vitest'
import { createServices, type Services } from '../../src/services.js'
import type { StoredWebhook } from '../../src/webhooks/webhook.js'
import type { NewWebhook } from '../../src/webhooks/webhook-store.js'
import { testConfig } from './config.js'
import { dropSchema, type StoreKind, uniqueSchema } from './stores.js'

/** What sets one stored webhook apart from another: its connection's integration, and the webhook's own. */
export interface StoredWebhookSpec {
  /** Names the workspace and, with `cn_`/`wh_`, the connection and the webhook. */
  readonly name: string
  readonly integration_type: string
  readonly categories: string[]
  readonly permissions: string[]
  readonly webhook: Pick<NewWebhook, 'object_type' | 'event' | 'interval' | 'page_max_limit' | 'webhook_type'>
}

/**
 * For tests of the webhook machinery below the API: each call of the answered function opens services on
 * `store` (no background jobs) and writes a workspace, a connection and a webhook straight into its stores;
 * after each test, the services close and a PostgreSQL schema is dropped.
 */
export function useStoredWebhook(
  store: StoreKind,
): (spec: StoredWebhookSpec) => Promise<{ services: Services; webhook: StoredWebhook }> {
  let services: Services | undefined
  let schema: string | undefined
  afterEach(async () => {
    await services?.close()
    if (schema) await dropSchema(schema)
  })
  return async (spec) => {
    schema = store === 'postgres' ? uniqueSchema() : undefined
    services = await createServices(testConfig(store), {
      background: false,
      ...(schema ? { pgSchema: schema } : {}),
    })
    const { workspace } = await services.workspaces.create(spec.name)
    const now = new Date().toISOString()
    const connection = await services.connectionStore.insert({
      id: `cn_${spec.name}`,
      workspace_id: workspace.id,
      integration_type: spec.integration_type,
      categories: spec.categories,
      permissions: spec.permissions,
      environment: 'Production',
      credentials: {},
      settings: {},
      created_at: now,
      updated_at: now,
    })
    const webhook = await services.webhooks.store.insert({
      id: `wh_${spec.name}`,
      workspace_id: workspace.id,
      connection_id: connection.id,
      integration_type: spec.integration_type,
      hook_url: 'http://127.0.0.1:9/hook',
      filters: {},
      environment: 'Production',
      include_all: false,
      is_paused: false,
      created_at: now,
      ...spec.webhook,
    })
    return { services, webhook }
  }
}
