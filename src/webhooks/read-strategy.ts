import type { IntegrationDefinition } from '../integrations/types.js'
import type { WebhookEvent } from './change-detection.js'

export type ReadStrategy = 'updated_gte' | 'fingerprints'

/**
 * How a virtual webhook finds changes. With `updated_gte` at the provider only changed records are read;
 * otherwise (and always for deletes, which only a complete listing can show) every record is read and
 * compared with its stored fingerprint.
 */
export function readStrategyOf(
  webhook: { object_type: string; event: WebhookEvent },
  integration: IntegrationDefinition,
): ReadStrategy {
  const handlers = integration.objects[webhook.object_type]
  if (webhook.event === 'deleted') return 'fingerprints'
  return handlers?.listParams.includes('updated_gte') ? 'updated_gte' : 'fingerprints'
}

/**
 * Whether a webhook's first check lists the object: for a backfill (`include_all`), or for the fingerprints
 * its baseline needs. A first check by `updated_gte` without a backfill only records where reading starts.
 */
export function firstCheckLists(webhook: { include_all: boolean }, strategy: ReadStrategy): boolean {
  return webhook.include_all || strategy === 'fingerprints'
}

/**
 * The `updated_gte` a later check lists from: `since` (the start of the last check whose changes were stored),
 * less how long the provider may take to list a change (`updatedGteLagMs`).
 */
export function updatedGteFrom(since: string, lagMs: number): string {
  return new Date(Date.parse(since) - lagMs).toISOString()
}
