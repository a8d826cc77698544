import { ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { basicCredentialsMatch } from '../native-auth.js'
import type { NativeWebhookSupport, WebhookEventName } from '../types.js'
import { fromPipedrivePerson } from './mappers.js'
import type { PipedriveEnvelope, PipedrivePerson } from './types.js'

/**
 * Person changes pushed by Pipedrive's webhooks v2 (the default version since 2025-03-17):
 * `POST /api/v1/webhooks` with `subscription_url`, `event_action` (create, change, delete), `event_object`
 * `person`, `name` (required, at most 255 characters), `version` and the HTTP Basic credentials Pipedrive
 * sends with every call (`http_auth_user`, `http_auth_password`); `DELETE /api/v1/webhooks/{id}` removes it
 * (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77: src/versions/v1/api/webhooks-api.ts,
 * src/versions/v1/models/add-webhook-request.ts). Pipedrive signs nothing: its calls carry those
 * credentials, which Unigate sets per subscription and checks in constant time.
 *
 * A call is `{meta, data, previous}`: `meta.action` create/change/delete and `meta.entity`; `data` the
 * person as it is (null on delete), `previous` the changed fields' earlier values, or the last state on
 * delete (https://pipedrive.readme.io/docs/guide-for-webhooks-v2, "Webhook format", "Data and previous").
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

interface WebhookV2Call {
  readonly meta?: { readonly action?: string; readonly entity?: string; readonly entity_id?: string }
  readonly data?: PipedrivePerson | null
  readonly previous?: Partial<PipedrivePerson> | null
}

/**
 * The person a call is about: as it is now (create, change), or as it was when deleted (`previous` holds
 * the last state); a delete without it names the person by `meta.entity_id` alone.
 */
function personOf(call: WebhookV2Call): UnifiedRecord | undefined {
  if (call.meta?.action === 'delete') {
    const last = call.previous
    if (last && typeof last.id === 'number') return fromPipedrivePerson(last as PipedrivePerson)
    return call.meta.entity_id ? { id: String(call.meta.entity_id) } : undefined
  }
  return call.data && typeof call.data.id === 'number' ? fromPipedrivePerson(call.data) : undefined
}

export const pipedrivePersonPushes: NativeWebhookSupport = {
  events: ['created', 'updated', 'deleted'],

  async subscribe(ctx, request) {
    const created = await ctx.client.json<PipedriveEnvelope<Hook>>({
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
    })
    return { externalId: String(created.data.id) }
  },

  async unsubscribe(ctx, externalId) {
    try {
      await ctx.client.json({
        method: 'DELETE',
        path: `/api/v1/webhooks/${encodeURIComponent(externalId)}`,
        idempotent: true,
      })
    } catch (err) {
      if (!(err instanceof ProviderError && err.status === 404)) throw err
    }
  },

  authenticate: (call, secret) => basicCredentialsMatch(call, PIPEDRIVE_HOOK_USER, secret),

  records(call, push) {
    const body = (call.body ?? {}) as WebhookV2Call
    if (body.meta?.entity !== 'person' || body.meta.action !== ACTIONS[push.event]) return []
    const person = personOf(body)
    return person ? [person] : []
  },
}
