import type { Harness } from './harness.js'

type Rec = Record<string, unknown>

/** Long enough that no check happens on its own during a test. */
const NEVER = 100_000

/**
 * Webhooks made to see whether their creation is refused as their checks' lists would be: `create` posts a
 * `created` webhook (with `include_all` when asked) that never checks on its own, `webhooksOf` lists what a
 * connection holds, to show that a refused one was not stored. Both read the harness and the receiver when
 * called, so they can be made before `beforeAll` starts them.
 */
export function checkedWebhooks(harness: () => Harness, hookUrl: () => string) {
  return {
    create: (connection: string, objectType: string, filters: Rec, includeAll: boolean) =>
      harness().api<Rec>('POST', '/unified/webhook', {
        body: {
          connection_id: connection,
          object_type: objectType,
          event: 'created',
          hook_url: hookUrl(),
          interval: NEVER,
          filters,
        },
        ...(includeAll ? { query: { include_all: 'true' } } : {}),
      }),
    webhooksOf: async (connection: string) =>
      (await harness().api<Rec[]>('GET', '/unified/webhook', { query: { connection_id: connection } })).body,
  }
}
