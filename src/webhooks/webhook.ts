import type { WebhookEvent } from './change-detection.js'

export type WebhookType = 'virtual' | 'native'

/** A webhook as the store keeps it (booleans and JSON decoded). */
export interface StoredWebhook {
  readonly id: string
  readonly workspace_id: string
  readonly connection_id: string
  readonly integration_type: string
  readonly object_type: string
  readonly event: WebhookEvent
  readonly hook_url: string
  readonly interval: number
  readonly page_max_limit: number
  readonly fields?: string
  readonly filters: Readonly<Record<string, string>>
  readonly webhook_type: WebhookType
  readonly environment: string
  readonly include_all: boolean
  readonly initial_done: boolean
  readonly is_healthy: boolean
  readonly is_paused: boolean
  readonly read_cursor?: string
  readonly checked_at?: string
  readonly next_check_at?: string
  readonly triggered_at?: string
  readonly delivery_failures: number
  readonly read_failures: number
  readonly created_at: string
  readonly updated_at: string
}

/**
 * The SDK's `Webhook` (sdk-contract section 2): `connection_id`, `event` and `object_type` always present,
 * no nulls, dates as ISO strings. `runs` are the start times of the most recent polls.
 */
export function webhookView(w: StoredWebhook, runs: readonly string[] = []) {
  return {
    id: w.id,
    workspace_id: w.workspace_id,
    connection_id: w.connection_id,
    integration_type: w.integration_type,
    object_type: w.object_type,
    event: w.event,
    hook_url: w.hook_url,
    interval: w.interval,
    page_max_limit: w.page_max_limit,
    ...(w.fields ? { fields: w.fields } : {}),
    ...(Object.keys(w.filters).length > 0 ? { filters: w.filters } : {}),
    webhook_type: w.webhook_type,
    environment: w.environment,
    is_healthy: w.is_healthy,
    is_paused: w.is_paused,
    ...(w.checked_at ? { checked_at: w.checked_at } : {}),
    ...(runs.length > 0 ? { runs: [...runs] } : {}),
    created_at: w.created_at,
    updated_at: w.updated_at,
  }
}

export type WebhookView = ReturnType<typeof webhookView>
