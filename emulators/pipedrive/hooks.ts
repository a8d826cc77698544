import { randomUUID } from 'node:crypto'
import { HookRetries, postHookCall } from '../kit/hook-calls.js'

/**
 * Pipedrive's webhooks v2 for persons: the subscriptions a company's users made, and the calls Pipedrive
 * makes when a person changes (https://pipedrive.readme.io/docs/guide-for-webhooks-v2).
 */
export interface Hook {
  readonly id: number
  readonly ownerId: number
  readonly companyId: number
  readonly eventAction: 'create' | 'change' | 'delete' | '*'
  readonly eventObject: string
  readonly subscriptionUrl: string
  readonly name: string
  readonly httpAuthUser: string | null
  readonly httpAuthPassword: string | null
  readonly addTime: number
  lastDeliveryTime: number | null
  lastHttpStatus: number | null
  /** When its first non-successful delivery since its last successful one (or its creation) was counted. */
  failingSince: number | null
}

/** One call the emulator made to a subscription URL, for tests asserting what Pipedrive sent. */
export interface HookCall {
  readonly hookId: number
  readonly url: string
  readonly body: Record<string, unknown>
  readonly attempt: number
  readonly authorization: string | undefined
  readonly status: number | 'error'
}

/** "The maximum limit of webhooks is 40 different webhooks per user" (guide-for-webhooks-v2). */
export const MAX_HOOKS_PER_USER = 40

/**
 * "In case the original notification sending attempt fails (due to receiving a non-2XX response code or
 * exceeding timeout of 10 seconds), we will try 3 more times: after 3, 30 and 150 seconds"
 * (guide-for-webhooks-v2, "Retry logic").
 */
export const RETRY_DELAYS_MS: readonly number[] = [3_000, 30_000, 150_000]
export const HOOK_TIMEOUT_MS = 10_000

/**
 * "If there are no successful deliveries on 3 consecutive days, we will delete this specific webhook"
 * (guide-for-webhooks-v2, "Retry logic"; the same in guide-for-webhooks and webhooks-for-apps, "Webhooks
 * policy"). Pipedrive does not say where its days begin: the emulator counts 3 × 24 hours from the first
 * non-successful delivery (a call failed with all its retries) after the last successful one, and deletes the
 * webhook when a non-successful delivery is counted that long after it (ours).
 */
export const DELETE_AFTER_FAILING_MS = 3 * 24 * 60 * 60 * 1000

export type PersonAction = 'create' | 'change' | 'delete'

export interface PersonChange {
  readonly action: PersonAction
  readonly personId: number
  /** The person as it is now (create, change); null on delete. */
  readonly data: Record<string, unknown> | null
  /** Changed fields' earlier values (change), the last state (delete), null (create). */
  readonly previous: Record<string, unknown> | null
  /** The user who made the change (the token's user) and who may see the person. */
  readonly userId: number
  readonly permittedUserIds: readonly number[]
}

/**
 * The person fields a v2 call's `data` carries: "only crucial information about the entity"
 * (https://pipedrive.readme.io/docs/webhooks-v2-migration-guide, "Structure changes"), as its "Create person"
 * example lists them (same page, "Webhooks v2 examples", Person): no `job_title`, `postal_address`,
 * `is_deleted`, `label_ids` or `picture_id`.
 */
const WEBHOOK_PERSON_FIELDS = [
  'add_time',
  'custom_fields',
  'emails',
  'first_name',
  'id',
  'label',
  'last_name',
  'name',
  'org_id',
  'owner_id',
  'phones',
  'update_time',
  'visible_to',
] as const

/**
 * A custom field's value as a v2 call carries it: an object with its `type` (same page, "Custom fields format
 * in webhooks v2": text `{type: 'varchar', value}`, numeric `{type: 'double', value}`, …). The emulator's
 * custom fields are text or numbers; nothing tells it a field's other types, so objects pass as they are.
 */
function webhookCustomField(value: unknown): unknown {
  if (typeof value === 'number') return { type: 'double', value }
  if (typeof value === 'string') return { type: 'varchar', value }
  return value
}

/** A v2 API person (`personJson`) as a webhooks v2 call carries it. */
export function webhookPerson(person: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of WEBHOOK_PERSON_FIELDS) if (key in person) out[key] = person[key]
  // `label` is in the example (null there); the emulator models no labels.
  out.label = null
  // "visible_to": "3" in every v2 example: a string, where the API answers a number.
  if (out.visible_to !== undefined) out.visible_to = String(out.visible_to)
  const custom = (person.custom_fields ?? {}) as Record<string, unknown>
  out.custom_fields = Object.fromEntries(Object.entries(custom).map(([k, v]) => [k, webhookCustomField(v)]))
  return out
}

export class PipedriveHooks {
  readonly hooks = new Map<number, Hook>()
  readonly calls: HookCall[] = []
  private nextId = 1
  private readonly retries = new HookRetries()

  constructor(
    private readonly companyDomain: string,
    private readonly retryDelaysMs: readonly number[] = RETRY_DELAYS_MS,
    /** The emulator's notion of now for the delete-after-3-days rule; tests move it instead of waiting days. */
    public clock: () => number = Date.now,
  ) {}

  add(hook: Omit<Hook, 'id' | 'lastDeliveryTime' | 'lastHttpStatus' | 'failingSince'>): Hook {
    const created: Hook = {
      ...hook,
      id: this.nextId++,
      lastDeliveryTime: null,
      lastHttpStatus: null,
      failingSince: null,
    }
    this.hooks.set(created.id, created)
    return created
  }

  ownedBy(userId: number): Hook[] {
    return [...this.hooks.values()].filter((h) => h.ownerId === userId)
  }

  /** Sends one call per matching subscription; the API answer does not wait for them, as in Pipedrive. */
  notify(change: PersonChange): void {
    for (const hook of this.hooks.values()) {
      const actionMatches = hook.eventAction === '*' || hook.eventAction === change.action
      const objectMatches = hook.eventObject === '*' || hook.eventObject === 'person'
      if (!actionMatches || !objectMatches) continue
      const eventId = randomUUID()
      const correlationId = randomUUID()
      const timestamp = new Date().toISOString()
      const bodyOf = (attempt: number) => ({
        // The meta block (guide-for-webhooks-v2, "Webhook's meta block"): ids as strings.
        meta: {
          action: change.action,
          entity: 'person',
          company_id: String(hook.companyId),
          correlation_id: correlationId,
          entity_id: String(change.personId),
          id: eventId,
          is_bulk_edit: false,
          timestamp,
          type: 'general',
          user_id: String(change.userId),
          version: '2.0',
          webhook_id: String(hook.id),
          webhook_owner_id: String(hook.ownerId),
          change_source: 'api',
          attempt,
          host: `${this.companyDomain}.pipedrive.com`,
          permitted_user_ids: change.permittedUserIds.map(String),
        },
        data: change.data,
        previous: change.previous,
      })
      void this.send(hook, bodyOf, 1)
    }
  }

  private async send(
    hook: Hook,
    bodyOf: (attempt: number) => Record<string, unknown>,
    attempt: number,
  ): Promise<void> {
    if (this.retries.closed) return
    const body = bodyOf(attempt)
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    // The HTTP Basic credentials given at subscription go with every call (addWebhookRequest
    // `http_auth_user`, `http_auth_password`: "The HTTP basic auth username of the subscription URL endpoint").
    if (hook.httpAuthUser !== null || hook.httpAuthPassword !== null) {
      const pair = `${hook.httpAuthUser ?? ''}:${hook.httpAuthPassword ?? ''}`
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`
    }
    const status = await postHookCall(hook.subscriptionUrl, headers, JSON.stringify(body), HOOK_TIMEOUT_MS)
    this.calls.push({
      hookId: hook.id,
      url: hook.subscriptionUrl,
      body,
      attempt,
      authorization: headers.authorization,
      status,
    })
    hook.lastDeliveryTime = Date.now()
    hook.lastHttpStatus = typeof status === 'number' ? status : null
    // "For a successful delivery, we'll accept any 2XX status code" (guide-for-webhooks-v2).
    if (typeof status === 'number' && status >= 200 && status < 300) {
      hook.failingSince = null
      return
    }
    if (!this.hooks.has(hook.id)) return
    const delay = this.retryDelaysMs[attempt - 1]
    if (delay === undefined) {
      this.countFailedDelivery(hook)
      return
    }
    this.retries.after(delay, () => void this.send(hook, bodyOf, attempt + 1))
  }

  /** A call that failed with all its retries: "counted as one non-successful delivery" (guide-for-webhooks-v2). */
  private countFailedDelivery(hook: Hook): void {
    const now = this.clock()
    if (hook.failingSince === null) hook.failingSince = now
    else if (now - hook.failingSince >= DELETE_AFTER_FAILING_MS) this.hooks.delete(hook.id)
  }

  close(): void {
    this.retries.close()
  }
}
