import { createHmac } from 'node:crypto'
import { ProviderError } from '../../errors.js'
import { secretsEqual } from '../native-auth.js'
import { sameTarget } from '../native-urls.js'
import type { HandlerContext, NativeCall, NativeWebhookSupport, WebhookEventName } from '../types.js'

/**
 * Lever's webhooks, made through its API (https://hire.lever.co/developer/documentation#webhooks-via-the-api):
 * `POST /webhooks {url, event, configuration}` answers the webhook with `configuration.signatureToken`, its own
 * signing key; `DELETE /webhooks/:id` removes it (204). One Lever webhook watches one event, so a unified
 * webhook may hold several; their ids are kept comma-joined and their signing keys as a JSON map by event.
 *
 * Each call is `{id, event, triggeredAt, token, signature, data}`, where `signature` is the hex HMAC-SHA256 of
 * `token + triggeredAt` keyed with the signature token (#securing-webhooks), and `data` names ids only
 * (`opportunityId`, `contactId`, …; #event-payloads): the opportunity is read back to build the record.
 */
export type LeverWebhookEvent =
  | 'applicationCreated'
  | 'candidateStageChange'
  | 'candidateArchiveChange'
  | 'candidateHired'
  | 'candidateDeleted'

/**
 * Which Lever events mean which unified change to an application (an opportunity). A hire archives the
 * opportunity with a `hired` reason; Lever documents `candidateHired` apart from `candidateArchiveChange` and
 * does not say whether a hire fires both, so `updated` watches both (a repeated delivery of the same record
 * is harmless; a missed hire is not).
 */
export const LEVER_EVENTS: Readonly<Record<WebhookEventName, readonly LeverWebhookEvent[]>> = {
  created: ['applicationCreated'],
  updated: ['candidateStageChange', 'candidateArchiveChange', 'candidateHired'],
  deleted: ['candidateDeleted'],
}

/**
 * "Some events can be configured with certain triggers/conditions … only available on candidate source"
 * (#event-configuration), for these four events. Unigate asks for every origin Lever lists, so no
 * application is left out whatever Lever's default is.
 */
const CONFIGURABLE: readonly LeverWebhookEvent[] = [
  'applicationCreated',
  'candidateArchiveChange',
  'candidateHired',
  'candidateStageChange',
]
const ALL_ORIGINS = ['applied', 'sourced', 'referred', 'university', 'agency', 'internal'] as const

interface LeverWebhook {
  readonly id: string
  readonly configuration?: { readonly signatureToken?: string }
}

/**
 * The created webhook. Lever's prose says a 201 carries it in the top-level `data` (#responses-and-errors),
 * while its "Create a Webhook" example nests it once more (`{data: {data: {…}}}`): both are read.
 */
function createdWebhook(body: unknown): LeverWebhook | undefined {
  const data = (body as { data?: { data?: unknown } } | undefined)?.data
  const hook = (data && typeof data.data === 'object' ? data.data : data) as LeverWebhook | undefined
  return typeof hook?.id === 'string' ? hook : undefined
}

async function deleteWebhook(ctx: HandlerContext, id: string): Promise<void> {
  try {
    await ctx.client.json({
      method: 'DELETE',
      path: `/webhooks/${encodeURIComponent(id)}`,
      idempotent: true,
    })
  } catch (err) {
    if (!(err instanceof ProviderError && err.status === 404)) throw err
  }
}

/** The signing keys of one unified webhook's Lever webhooks, by event. */
type SigningKeys = Partial<Record<LeverWebhookEvent, string>>

function signingKeysOf(secret: string): SigningKeys {
  try {
    const parsed = JSON.parse(secret) as unknown
    return parsed && typeof parsed === 'object' ? (parsed as SigningKeys) : {}
  } catch {
    return {}
  }
}

interface LeverCall {
  readonly event?: unknown
  readonly triggeredAt?: unknown
  readonly token?: unknown
  readonly signature?: unknown
  readonly data?: { readonly opportunityId?: unknown } | null
}

/** Lever's signature: hex HMAC-SHA256 of `token + triggeredAt`, keyed with the webhook's signature token. */
export function leverSignature(signatureToken: string, token: string, triggeredAt: string | number): string {
  return createHmac('sha256', signatureToken).update(`${token}${triggeredAt}`).digest('hex')
}

/**
 * How old a call's `triggeredAt` may be. Lever's signature covers only `token + triggeredAt`, not `data`, and
 * Lever suggests checking "if the timestamp is not too far from the current time" (#securing-webhooks). The
 * window must still admit Lever's retries: "five times, waiting longer and longer in between tries"
 * (#responding-to-a-webhook), waits Lever does not give, and `triggeredAt` is "when webhook event was
 * triggered" (#receiving-webhooks), so a retry may well carry the first try's time. A day admits any
 * plausible five-step back-off; a call older than that (a manual "Rerun" from Lever's two-week delivery
 * history, say) is refused. Tokens are remembered for as long (`callToken`), so within the window a
 * captured call cannot be sent twice.
 */
export const LEVER_CALL_MAX_AGE_MS = 24 * 60 * 60 * 1000
/** Clock skew allowed between Lever and Unigate for a `triggeredAt` in the future. */
export const LEVER_CALL_MAX_SKEW_MS = 5 * 60 * 1000

/** `triggeredAt` in ms since the epoch (Lever's examples send a number; a numeric string is read too). */
function triggeredAtMs(body: LeverCall): number | undefined {
  const value = typeof body.triggeredAt === 'string' ? Number(body.triggeredAt) : body.triggeredAt
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/**
 * True when the call is signed with the key of the Lever webhook for its event (compared in constant time)
 * and was triggered within the accepted window around `nowMs`.
 */
export function leverCallIsSigned(call: NativeCall, secret: string, nowMs: number): boolean {
  const body = (call.body ?? {}) as LeverCall
  if (typeof body.event !== 'string' || typeof body.token !== 'string' || body.token === '') return false
  if (typeof body.triggeredAt !== 'number' && typeof body.triggeredAt !== 'string') return false
  if (typeof body.signature !== 'string') return false
  const at = triggeredAtMs(body)
  if (at === undefined || at < nowMs - LEVER_CALL_MAX_AGE_MS || at > nowMs + LEVER_CALL_MAX_SKEW_MS)
    return false
  // Own keys only: an event named `constructor` or `toString` must not find Object.prototype's methods.
  const keys = signingKeysOf(secret)
  const key = Object.hasOwn(keys, body.event) ? keys[body.event as LeverWebhookEvent] : undefined
  if (typeof key !== 'string' || key === '') return false
  return secretsEqual(body.signature, leverSignature(key, body.token, body.triggeredAt))
}

/**
 * Pages of `GET /webhooks` a subscription check reads at most (Lever's default page of 100 webhooks each,
 * #pagination): far beyond the few webhooks an account has, and a bound on an answer that never ends.
 */
const MAX_WEBHOOK_PAGES = 50

/**
 * "List all webhooks" (`GET /webhooks`, https://hire.lever.co/developer/documentation#list-webhooks), each with
 * its `id` and `url`, pages followed as every Lever list pages (`hasNext`, `next` as the next `offset`,
 * #pagination).
 */
async function listWebhooks(ctx: HandlerContext): Promise<{ id: string; url: unknown }[]> {
  const listed: { id: string; url: unknown }[] = []
  let offset: string | undefined
  let pages = 0
  do {
    // The address is the connection's (api_url): one that always answers a next page must not hold the
    // check (and its poller slot) for ever. Failing is not `gone`: nothing is subscribed again.
    if (++pages > MAX_WEBHOOK_PAGES) {
      throw new Error(`Lever listed more than ${MAX_WEBHOOK_PAGES} pages of webhooks`)
    }
    const page = await ctx.client.json<{
      data?: { id?: unknown; url?: unknown }[]
      hasNext?: boolean
      next?: string
    }>({
      method: 'GET',
      path: '/webhooks',
      ...(offset ? { query: { offset } } : {}),
    })
    for (const hook of page.data ?? [])
      if (typeof hook.id === 'string') listed.push({ id: hook.id, url: hook.url })
    offset = page.hasNext && page.next ? page.next : undefined
  } while (offset)
  return listed
}

export const leverApplicationPushes: NativeWebhookSupport = {
  events: ['created', 'updated', 'deleted'],

  async subscribe(ctx, request) {
    const ids: string[] = []
    const keys: SigningKeys = {}
    try {
      for (const event of LEVER_EVENTS[request.event]) {
        const body = await ctx.client.json({
          method: 'POST',
          path: '/webhooks',
          body: {
            url: request.url,
            event,
            ...(CONFIGURABLE.includes(event)
              ? { configuration: { conditions: { origins: [...ALL_ORIGINS] } } }
              : {}),
          },
        })
        const hook = createdWebhook(body)
        if (hook) ids.push(hook.id)
        const signatureToken = hook?.configuration?.signatureToken
        if (!signatureToken) {
          throw new Error(`Lever created a ${event} webhook without the signature token that signs its calls`)
        }
        keys[event] = signatureToken
      }
    } catch (err) {
      // Nothing half-made stays at Lever: the webhooks made so far are removed before failing.
      await Promise.all(ids.map((id) => deleteWebhook(ctx, id).catch(() => undefined)))
      throw err
    }
    return { externalId: ids.join(','), secret: JSON.stringify(keys) }
  },

  async unsubscribe(ctx, externalId) {
    for (const id of externalId.split(',').filter(Boolean)) await deleteWebhook(ctx, id)
  },

  /**
   * Every Lever webhook of ours must still be listed (listWebhooks), or the unified webhook misses that event;
   * an admin deletes them in Lever's settings or with `DELETE /webhooks/:id`.
   */
  async subscriptionState(ctx, externalId) {
    const listed = new Set((await listWebhooks(ctx)).map((h) => h.id))
    const ours = externalId.split(',').filter(Boolean)
    return ours.length > 0 && ours.every((id) => listed.has(id)) ? 'present' : 'gone'
  },

  /** The Lever webhooks (one per event) that call the address, from the same list. */
  async subscriptionsAt(ctx, target) {
    return (await listWebhooks(ctx)).filter((h) => sameTarget(h.url, target.url)).map((h) => h.id)
  },

  authenticate: leverCallIsSigned,

  // "Cache the token value locally and not honor any subsequent request with the same token" (#securing-webhooks).
  callToken(call) {
    const body = (call.body ?? {}) as LeverCall
    const at = triggeredAtMs(body)
    if (typeof body.token !== 'string' || at === undefined) return undefined
    return { token: body.token, keepUntilMs: at + LEVER_CALL_MAX_AGE_MS }
  },

  // Lever's calls name the opportunity only: Unigate reads it back (deleted: delivers its id once Lever no
  // longer has it).
  records(call, push) {
    const body = (call.body ?? {}) as LeverCall
    const id = body.data?.opportunityId
    const ofEvent = LEVER_EVENTS[push.event].includes(body.event as LeverWebhookEvent)
    return {
      ids: ofEvent && typeof id === 'string' && id !== '' ? [id] : [],
      removed: body.event === 'candidateDeleted',
    }
  },
}
