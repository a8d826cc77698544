import type { ObjectHandlers, WebhookEventName } from './types.js'

export type WebhookKind = 'virtual' | 'native'

export const WEBHOOK_EVENTS: readonly WebhookEventName[] = ['created', 'updated', 'deleted']

/**
 * How an object's changes can be watched, per event: `native` where the provider pushes the event,
 * `virtual` where polling can see it (a list; `updated` only for records that can change; `deleted` only
 * where the listing is complete, so a missing record was deleted). The one rule behind both the support
 * matrix (`webhook_events`) and which webhooks `POST /unified/webhook` accepts.
 */
export function webhookKinds(
  handlers: ObjectHandlers | undefined,
  event: WebhookEventName,
): readonly WebhookKind[] {
  const kinds: WebhookKind[] = []
  const canList = typeof handlers?.list === 'function'
  const polled =
    canList &&
    (event !== 'updated' || handlers?.recordsNeverChange !== true) &&
    (event !== 'deleted' || handlers?.listIsComplete === true)
  if (polled) kinds.push('virtual')
  if (handlers?.nativeWebhooks?.events.includes(event)) kinds.push('native')
  return kinds
}

/** The SDK's `webhook_events`: each event the object can be watched for, with its kinds. */
export function webhookEventsOf(
  handlers: ObjectHandlers,
): Partial<Record<WebhookEventName, readonly WebhookKind[]>> {
  const out: Partial<Record<WebhookEventName, readonly WebhookKind[]>> = {}
  for (const event of WEBHOOK_EVENTS) {
    const kinds = webhookKinds(handlers, event)
    if (kinds.length > 0) out[event] = kinds
  }
  return out
}
