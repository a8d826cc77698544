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
