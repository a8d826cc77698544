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

/** A virtual Umami property webhook of workspace `name`, checked every 100,000 minutes unless asked. */
export function propertyWebhookSpec(name: string, interval = 100_000): StoredWebhookSpec {
  return {
    name,
    integration_type: 'umami',
    categories: ['analytics'],
    permissions: ['analytics_property_read'],
    webhook: {
      object_type: 'analytics_property',
      event: 'created',
      interval,
      page_max_limit: 1,
      webhook_type: 'virtual',
    },
  }
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
    const [webhook] = await storeWebhooks(services, spec, [{ id: `wh_${spec.name}` }])
    return { services, webhook: webhook! }
  }
}

/**
 * Writes a workspace named `spec.name`, its connection `cn_<name>` and one webhook per entry of `each`
 * (its id and whatever else sets it apart, such as `next_check_at`) straight into the stores.
 */
export async function storeWebhooks(
  services: Services,
  spec: StoredWebhookSpec,
  each: ReadonlyArray<Pick<NewWebhook, 'id'> & Partial<NewWebhook>>,
): Promise<StoredWebhook[]> {
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
  const webhooks: StoredWebhook[] = []
  for (const own of each) {
    webhooks.push(
      await services.webhooks.store.insert({
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
        ...own,
      }),
    )
  }
  return webhooks
}
