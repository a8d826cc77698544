import { expect } from 'vitest'
import type { Harness } from './harness.js'

/**
 * A virtual `updated` webhook on `objectType` that checks only when told (its interval is far off):
 * `trigger()` asks for a check and returns once the check has run. Created once its first check has run,
 * so changes made after this returns are what the next check sees.
 */
export async function watchedWebhook(
  h: Harness,
  connectionId: string,
  hookUrl: string,
  objectType: string,
): Promise<{ id: string; trigger(): Promise<void> }> {
  const created = await h.api<Record<string, unknown>>('POST', '/unified/webhook', {
    body: {
      connection_id: connectionId,
      hook_url: hookUrl,
      object_type: objectType,
      event: 'updated',
      interval: 100_000,
      // Asked for by name: where the provider also pushes changes, a webhook is native by default.
      webhook_type: 'virtual',
    },
  })
  expect(created.status, created.text).toBe(200)
  const id = created.body.id as string
  const checkedAt = async () =>
    (await h.api<Record<string, unknown>>('GET', `/unified/webhook/${id}`)).body.checked_at
  const checked = async (after?: unknown) => {
    for (let i = 0; i < 600; i++) {
      const at = await checkedAt()
      if (at && (!after || String(at) > String(after))) return
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error('the webhook was never checked')
  }
  await checked()
  return {
    id,
    async trigger() {
      const before = await checkedAt()
      expect((await h.api('PUT', `/unified/webhook/${id}/trigger`)).status).toBe(200)
      await checked(before)
    },
  }
}
