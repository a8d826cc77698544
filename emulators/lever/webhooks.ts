import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { HookRetries, postHookCall } from '../kit/hook-calls.js'
import { badRequest, notFound } from './errors.js'

/**
 * Lever's webhooks (https://hire.lever.co/developer/documentation#webhooks and #webhooks-via-the-api): made
 * through the API, each watches one event and signs its calls with its own `signatureToken`.
 */

/** "One of the available webhook triggers" (#webhooks-via-the-api). */
export const LEVER_WEBHOOK_EVENTS = [
  'applicationCreated',
  'candidateHired',
  'candidateStageChange',
  'candidateArchiveChange',
  'candidateDeleted',
  'interviewCreated',
  'interviewUpdated',
  'interviewDeleted',
  'contactCreated',
  'contactUpdated',
] as const
export type LeverWebhookEvent = (typeof LEVER_WEBHOOK_EVENTS)[number]

/**
 * "Currently, these conditions are only available on candidate source and include: applied, sourced, referred,
 * university, agency, internal", for applicationCreated, candidateArchiveChange, candidateHired and
 * candidateStageChange (#event-configuration).
 */
export const LEVER_ORIGINS = ['applied', 'sourced', 'referred', 'university', 'agency', 'internal'] as const
const CONFIGURABLE: readonly LeverWebhookEvent[] = [
  'applicationCreated',
  'candidateArchiveChange',
  'candidateHired',
  'candidateStageChange',
]

/** "Lever will continue trying to send the webhook five times, waiting longer and longer in between tries" (#responding-to-a-webhook). */
const RETRIES = 5

export interface StoredLeverWebhook {
  readonly id: string
  readonly url: string
  readonly event: LeverWebhookEvent
  readonly origins: readonly string[] | undefined
  readonly signatureToken: string
  readonly createdAt: number
  readonly updatedAt: number
}

/** One call the emulator made to a webhook URL (for tests asserting what was sent). */
export interface LeverWebhookCall {
  readonly webhookId: string
  readonly url: string
  readonly body: Record<string, unknown>
  readonly status: number | 'error'
}

export interface LeverWebhookOptions {
  /**
   * The webhook groups a Super Admin has toggled on: "A Super Admin will need to toggle-on the webhook group
   * (ie: 'Candidate Stage Change') on the webhooks page in their account settings for the data to begin
   * sending" (#create-a-webhook). None by default, as in a new account.
   */
  readonly groupsOn?: readonly LeverWebhookEvent[]
  /**
   * Lever "only support[s] HTTPS enabled endpoints" (#securing-webhooks), so an `http:` URL is refused. This
   * emulator speaks no TLS, so a test whose receiver is plain HTTP sets this: the emulator's own accommodation.
   */
  readonly plainHttp?: boolean
  /** The first retry's wait, doubled each time (Lever's own waits are not documented). Default 1000. */
  readonly retryBaseMs?: number
}

/** The fields every event's `data` carries; the others depend on the event (#event-payloads). */
export interface LeverEventData {
  readonly opportunityId: string
  readonly candidateId: string
  readonly contactId: string
  readonly [field: string]: unknown
}

export class LeverWebhooks {
  readonly hooks = new Map<string, StoredLeverWebhook>()
  readonly calls: LeverWebhookCall[] = []
  readonly groupsOn: Set<LeverWebhookEvent>
  private readonly retries = new HookRetries()

  constructor(private readonly options: LeverWebhookOptions = {}) {
    this.groupsOn = new Set(options.groupsOn ?? [])
  }

  create(body: Record<string, unknown>): StoredLeverWebhook {
    const url = body.url
    if (typeof url !== 'string' || url === '') throw badRequest('Missing required field: url')
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw badRequest('Invalid url: must be an absolute URL')
    }
    if (parsed.protocol !== 'https:' && !(this.options.plainHttp && parsed.protocol === 'http:')) {
      throw badRequest('Invalid url: webhooks are only sent to HTTPS endpoints')
    }
    const event = body.event
    if (typeof event !== 'string' || !(LEVER_WEBHOOK_EVENTS as readonly string[]).includes(event)) {
      throw badRequest(`Invalid event: must be one of ${LEVER_WEBHOOK_EVENTS.join(', ')}`)
    }
    const origins = originsOf(body.configuration)
    const now = Date.now()
    const hook: StoredLeverWebhook = {
      id: randomUUID(),
      url,
      event: event as LeverWebhookEvent,
      origins: CONFIGURABLE.includes(event as LeverWebhookEvent) ? origins : undefined,
      // "Randomly generated" tokens of 48 characters are what Lever shows (#securing-webhooks).
      signatureToken: randomBytes(24).toString('hex'),
      createdAt: now,
      updatedAt: now,
    }
    this.hooks.set(hook.id, hook)
    return hook
  }

  remove(id: string): void {
    if (!this.hooks.delete(id)) throw notFound('webhook')
  }

  /**
   * Sends `event` to every webhook watching it whose group is on and whose origin condition the opportunity
   * meets, signed, retrying a call not answered 2xx (fire and forget, as Lever's queue is).
   */
  trigger(event: LeverWebhookEvent, origin: string, data: LeverEventData): void {
    if (!this.groupsOn.has(event)) return
    for (const hook of this.hooks.values()) {
      if (hook.event !== event) continue
      if (hook.origins && !hook.origins.includes(origin)) continue
      void this.send(hook, signedCall(hook, data), 0)
    }
  }

  private async send(
    hook: StoredLeverWebhook,
    body: Record<string, unknown>,
    attempt: number,
  ): Promise<void> {
    if (this.retries.closed) return
    // The headers of Lever's example delivery (#example-delivery).
    const headers = { 'user-agent': 'Lever-Webhooks', 'content-type': 'application/json' }
    const status = await postHookCall(hook.url, headers, JSON.stringify(body))
    this.calls.push({ webhookId: hook.id, url: hook.url, body, status })
    if (typeof status === 'number' && status >= 200 && status <= 299) return
    if (attempt >= RETRIES) return
    this.retries.after(
      (this.options.retryBaseMs ?? 1000) * 2 ** attempt,
      () => void this.send(hook, body, attempt + 1),
    )
  }

  close(): void {
    this.retries.close()
  }
}

/**
 * One event's call, signed: "Concatenate token and triggeredAt values … HMAC … using your signature token as a
 * key and SHA256 digest mode … compare the resulting hexdigest to the signature" (#securing-webhooks).
 * `triggeredAt` is "when webhook event was triggered" and `id` the "Unique ID for this event"
 * (#receiving-webhooks); Lever does not say whether a retry is signed anew, so a retry here sends the same
 * call again (same id, triggeredAt, token and signature), the harder case for a receiver: a freshness check
 * must admit the retry's old time, and a token cache must not remember a call it refused.
 */
function signedCall(hook: StoredLeverWebhook, data: LeverEventData): Record<string, unknown> {
  const triggeredAt = Date.now()
  const token = randomBytes(24).toString('hex')
  const signature = createHmac('sha256', hook.signatureToken).update(`${token}${triggeredAt}`).digest('hex')
  return { id: randomUUID(), event: hook.event, triggeredAt, token, signature, data }
}

function originsOf(configuration: unknown): readonly string[] | undefined {
  if (configuration === undefined || configuration === null) return undefined
  if (typeof configuration !== 'object') throw badRequest('Invalid configuration: must be an object')
  const conditions = (configuration as { conditions?: unknown }).conditions
  if (conditions === undefined || conditions === null) return undefined
  const origins = (conditions as { origins?: unknown }).origins
  if (origins === undefined) return undefined
  if (
    !Array.isArray(origins) ||
    !origins.every((o) => typeof o === 'string' && (LEVER_ORIGINS as readonly string[]).includes(o))
  ) {
    throw badRequest(
      `Invalid configuration.conditions.origins: each must be one of ${LEVER_ORIGINS.join(', ')}`,
    )
  }
  return origins as string[]
}

/** The webhook as Lever shows it; the signature token only in the answer that created it (#create-a-webhook). */
function view(hook: StoredLeverWebhook, withToken: boolean): Record<string, unknown> {
  return {
    id: hook.id,
    url: hook.url,
    event: hook.event,
    createdAt: hook.createdAt,
    updatedAt: hook.updatedAt,
    configuration: {
      ...(hook.origins ? { conditions: { origins: hook.origins } } : {}),
      ...(withToken ? { signatureToken: hook.signatureToken } : {}),
    },
  }
}

export function registerWebhookRoutes(app: FastifyInstance, webhooks: LeverWebhooks): void {
  // "Lists all existing webhooks" (#list-webhooks); its example shows no signature token.
  app.get('/v1/webhooks', async () => ({ data: [...webhooks.hooks.values()].map((h) => view(h, false)) }))

  // 201 with the webhook in `data` (#responses-and-errors: "information is available in the data field at the
  // top level"; the page's own example nests it in a second `data`, which is not modelled).
  app.post('/v1/webhooks', async (request, reply) => {
    const body = request.body
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw badRequest('The request body must be a JSON object')
    }
    const hook = webhooks.create(body as Record<string, unknown>)
    return reply.code(201).send({ data: view(hook, true) })
  })

  // 204 No Content (#delete-a-webhook).
  app.delete('/v1/webhooks/:id', async (request, reply) => {
    webhooks.remove((request.params as { id: string }).id)
    return reply.code(204).send()
  })
}
