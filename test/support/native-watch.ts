import type { NativeServer } from './native-server.js'

type Rec = Record<string, unknown>

export interface WebhookAnswer {
  readonly id: string
  readonly is_healthy: boolean
  readonly checked_at?: string
  readonly runs?: string[]
}

/**
 * Asks for the webhook's check now (`PUT /unified/webhook/{id}/trigger`; for a native webhook past its
 * backfill, the check that the provider still holds its subscription) and waits until a new run shows in
 * the webhook's `runs`, whatever its outcome. Answers the webhook as the API shows it then.
 */
export async function checkNow(server: Pick<NativeServer, 'api'>, webhookId: string): Promise<WebhookAnswer> {
  const view = async () => (await server.api<WebhookAnswer>('GET', `/unified/webhook/${webhookId}`)).body
  const before = (await view()).runs?.[0]
  const triggered = await server.api('PUT', `/unified/webhook/${webhookId}/trigger`)
  if (triggered.status !== 200) throw new Error(`trigger answered ${triggered.status}: ${triggered.text}`)
  const deadline = Date.now() + 15_000
  for (;;) {
    const now = await view()
    // Past the lease's release too: the run is recorded in the same commit that releases it.
    if (now.runs?.[0] !== undefined && now.runs[0] !== before) return now
    if (Date.now() > deadline) throw new Error(`no check of webhook ${webhookId} ran within 15 s`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The workspace's notifications about one webhook. */
export async function notificationsOf(server: Pick<NativeServer, 'api'>, webhookId: string): Promise<Rec[]> {
  const listed = await server.api<Rec[]>('GET', '/unified/notification?limit=100')
  return listed.body.filter((n) => n.webhook_id === webhookId)
}
