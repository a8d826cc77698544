import { ProviderError, WebhooksNotPermitted } from '../../errors.js'
import { basicCredentialsMatch } from '../native-auth.js'
import { sameTarget } from '../native-urls.js'
import type { HandlerContext, NativeWebhookSupport, WebhookEventName } from '../types.js'
import type { PipedriveEnvelope } from './types.js'

/**
 * Person changes pushed by Pipedrive's webhooks v2 (the default version since 2025-03-17):
 * `POST /api/v1/webhooks` with `subscription_url`, `event_action` (create, change, delete), `event_object`
 * `person`, `name` (required, at most 255 characters), `version` and the HTTP Basic credentials Pipedrive
 * sends with every call (`http_auth_user`, `http_auth_password`); `DELETE /api/v1/webhooks/{id}` removes it
 * (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77: src/versions/v1/api/webhooks-api.ts,
 * src/versions/v1/models/add-webhook-request.ts). Pipedrive signs nothing: its calls carry those
 * credentials, which Unigate sets per subscription and checks in constant time.
 *
 * A call is `{meta, data, previous}`: `meta.action` create/change/delete, `meta.entity` and `meta.entity_id`
 * (https://pipedrive.readme.io/docs/guide-for-webhooks-v2, "Webhook format"). Its body is not used as the
 * record: v2's `data` "contains only crucial information about the entity" (no `job_title`, no
 * `postal_address`) and its custom fields are `{type, value}` / `{id, type}` objects, not the API's values
 * (https://pipedrive.readme.io/docs/webhooks-v2-migration-guide, "Structure changes", "Custom fields format in
 * webhooks v2": "Should a field no longer be available in webhook v2's payload, please query it from our
 * API"); and the Basic password is no proof of origin, since any user of the company reads it back with
 * `GET /v1/webhooks` (client-nodejs@97e5382: src/versions/v1/models/base-webhook.ts `http_auth_password`).
 * So a call only names the person (`meta.entity_id`), read back through the contact's `get`; a delete is
 * delivered once that read finds the person gone.
 */
const ACTIONS: Readonly<Record<WebhookEventName, string>> = {
  created: 'create',
  updated: 'change',
  deleted: 'delete',
}

/** The user name Unigate sets; the password is the subscription's random secret. */
export const PIPEDRIVE_HOOK_USER = 'unigate'

/** Pipedrive's webhook `name` is at most 255 characters (addWebhookRequest in its OpenAPI description). */
const MAX_NAME = 255

type Hook = { id: number }

/** A webhook as `GET /api/v1/webhooks` lists it (client-nodejs@97e5382: src/versions/v1/models/base-webhook.ts). */
interface ListedHook {
  readonly id?: number
  readonly is_active?: number | boolean
  readonly remove_time?: string | null
  readonly subscription_url?: string
}

interface WebhookV2Call {
  readonly meta?: { readonly action?: unknown; readonly entity?: unknown; readonly entity_id?: unknown }
}

/** Pipedrive's person ids are integers; `meta.entity_id` carries one as a string (a number is read too). */
function personIdOf(call: WebhookV2Call): string | undefined {
  const id = call.meta?.entity_id
  const text = typeof id === 'number' ? String(id) : id
  return typeof text === 'string' && /^[1-9]\d{0,15}$/.test(text) ? text : undefined
}

/**
 * Pipedrive's words for a token used outside its app's scopes
 * (https://pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes).
 */
const SCOPE_REFUSAL = /scope and url mismatch/i

/**
 * Pipedrive's Webhooks API takes an OAuth token only from an app with the `admin` or `webhooks:full` scope
 * (`webhooks:read` to list), chosen in Developer Hub (client-nodejs@97e5382: src/versions/v1/api/webhooks-api.ts,
 * `setOAuthToObject(..., ["admin"])`; https://pipedrive.readme.io/docs/marketplace-scopes-and-permissions-explanations),
 * and answers any other 403 "Scope and URL mismatch"
 * (https://pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes). Unigate's authorization
 * request names no scope (the app's are fixed), so the refusal says which scope the app lacks.
 */
async function webhooksCall<T>(ctx: HandlerContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    // Only Pipedrive's scope refusal: a 403 of anything in front of it (a firewall) is not about scopes.
    if (
      err instanceof ProviderError &&
      err.status === 403 &&
      ctx.credentials.access_token &&
      SCOPE_REFUSAL.test(err.providerMessage)
    ) {
      throw new WebhooksNotPermitted(
        403,
        `${err.providerMessage}; Pipedrive's Webhooks API needs the OAuth app's webhooks:full scope (or admin), ` +
          "set in Pipedrive's Developer Hub and granted by re-authorizing, or create the webhook as virtual",
        err.retryAfterSeconds,
      )
    }
    throw err
  }
}

export const pipedrivePersonPushes: NativeWebhookSupport = {
  events: ['created', 'updated', 'deleted'],

  async subscribe(ctx, request) {
    const created = await webhooksCall(ctx, () =>
      ctx.client.json<PipedriveEnvelope<Hook>>({
        method: 'POST',
        path: '/api/v1/webhooks',
        body: {
          subscription_url: request.url,
          event_action: ACTIONS[request.event],
          event_object: 'person',
          name: request.name.slice(0, MAX_NAME),
          version: '2.0',
          http_auth_user: PIPEDRIVE_HOOK_USER,
          http_auth_password: request.secret,
        },
      }),
    )
    return { externalId: String(created.data.id) }
  },

  async unsubscribe(ctx, externalId) {
    try {
      await webhooksCall(ctx, () =>
        ctx.client.json({
          method: 'DELETE',
          path: `/api/v1/webhooks/${encodeURIComponent(externalId)}`,
          idempotent: true,
        }),
      )
    } catch (err) {
      if (!(err instanceof ProviderError && err.status === 404)) throw err
    }
  },

  /**
   * `GET /api/v1/webhooks` lists the company's webhooks (getWebhooks in client-nodejs@97e5382:
   * src/versions/v1/api/webhooks-api.ts). Ours is gone when it is not listed, or listed with a `remove_time`
   * (base-webhook.ts): Pipedrive deletes a webhook with "no successful deliveries on 3 consecutive days"
   * (https://pipedrive.readme.io/docs/guide-for-webhooks-v2, "Retry logic"), and any admin may delete it. One
   * listed with `is_active` 0 and no `remove_time` is present: that is the "Ban System" (ten failed first
   * attempts ban it "for 30 minutes", after which "the webhook is reactivated", same page, "Webhooks
   * policy"), and subscribing again would only add a second webhook beside it.
   */
  async subscriptionState(ctx, externalId) {
    const listed = await webhooksCall(ctx, () =>
      ctx.client.json<PipedriveEnvelope<ListedHook[] | null>>({ method: 'GET', path: '/api/v1/webhooks' }),
    )
    const ours = (listed.data ?? []).find((h) => String(h.id) === externalId)
    return ours && !ours.remove_time ? 'present' : 'gone'
  },

  /**
   * The same list (getWebhooks, every webhook of the company, unpaged), each with the `subscription_url` it calls
   * (base-webhook.ts); one listed with a `remove_time` is already deleted.
   */
  async subscriptionsAt(ctx, target) {
    const listed = await webhooksCall(ctx, () =>
      ctx.client.json<PipedriveEnvelope<ListedHook[] | null>>({ method: 'GET', path: '/api/v1/webhooks' }),
    )
    return (listed.data ?? [])
      .filter((h) => sameTarget(h.subscription_url, target.url) && !h.remove_time && typeof h.id === 'number')
      .map((h) => String(h.id))
  },

  authenticate: (call, secret) => basicCredentialsMatch(call, PIPEDRIVE_HOOK_USER, secret),

  records(call, push) {
    const body = (call.body ?? {}) as WebhookV2Call
    const id = personIdOf(body)
    const ofEvent = body.meta?.entity === 'person' && body.meta.action === ACTIONS[push.event]
    return { ids: ofEvent && id ? [id] : [], removed: push.event === 'deleted' }
  },
}
