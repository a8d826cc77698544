import type { ObjectModel, Operation } from './common.js'

const WRITES: readonly Operation[] = ['create', 'update', 'patch', 'remove']

/**
 * The SDK's `webhook` permission: subscribing at the provider for pushed changes (native webhooks), which
 * writes there (a PostHog hog function, say). Reading an object does not imply it; a connection without it
 * still gets changes through virtual webhooks, by polling.
 */
export const WEBHOOK_PERMISSION = 'webhook'

/** The unified permission an operation needs: `analytics_event_read` or `analytics_event_write`. */
export function permissionFor(model: ObjectModel, operation: Operation): string {
  return `${model.objectType}_${WRITES.includes(operation) ? 'write' : 'read'}`
}

/** Every permission an object's operations can need, in a stable order. */
export function permissionsOf(
  model: ObjectModel,
  operations: readonly Operation[] = model.operations,
): string[] {
  return [...new Set(operations.map((op) => permissionFor(model, op)))]
}
