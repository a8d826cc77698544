import type { FastifyInstance } from 'fastify'
import { PipedriveHttpError } from '../errors.js'
import { type Hook, MAX_HOOKS_PER_USER } from '../hooks.js'
import type { PipedriveState } from '../state.js'

/**
 * Webhooks API v1 (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77:
 * src/versions/v1/api/webhooks-api.ts, models/add-webhook-request.ts, base-webhook.ts; the responses'
 * examples in Pipedrive's OpenAPI description): list, create (201), delete. A failure is
 * `{status: 'error', success: false, errors: {<field>: [<message>]}}`.
 */
const ACTIONS = ['create', 'change', 'delete', '*'] as const
const OBJECTS = [
  'activity',
  'deal',
  'lead',
  'note',
  'organization',
  'person',
  'pipeline',
  'product',
  'stage',
  'user',
  '*',
] as const
const MAX_NAME = 255

const hookError = (status: number, field: string, message: string) =>
  new PipedriveHttpError(status, message, { status: 'error', errors: { [field]: [message] } })

/** `BaseWebhook`: `is_active` 1 or 0, times ISO 8601 with milliseconds as in its example. */
function hookJson(h: Hook) {
  return {
    id: h.id,
    company_id: h.companyId,
    owner_id: h.ownerId,
    user_id: h.ownerId,
    event_action: h.eventAction,
    event_object: h.eventObject,
    subscription_url: h.subscriptionUrl,
    version: '2.0',
    is_active: 1,
    add_time: new Date(h.addTime).toISOString(),
    remove_time: null,
    type: 'general',
    http_auth_user: h.httpAuthUser,
    http_auth_password: h.httpAuthPassword,
    remove_reason: null,
    last_delivery_time: h.lastDeliveryTime === null ? null : new Date(h.lastDeliveryTime).toISOString(),
    last_http_status: h.lastHttpStatus,
    admin_id: h.ownerId,
    name: h.name,
  }
}

function optionalText(body: Record<string, unknown>, field: string): string | null {
  const v = body[field]
  if (v === undefined || v === null) return null
  if (typeof v !== 'string') throw hookError(400, field, `${field} must be a string`)
  return v
}

/** A full http(s) address that is not the API itself ("you cannot use Pipedrive API endpoints"). */
function subscriptionUrlOf(value: unknown, apiOrigin: string): string {
  let url: URL | undefined
  try {
    url = typeof value === 'string' ? new URL(value) : undefined
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin === apiOrigin) {
    // The example 400 of addWebhook: `errors: {subscription_url: ['invalid or non-reachable URL']}`.
    throw hookError(400, 'subscription_url', 'invalid or non-reachable URL')
  }
  return url.toString()
}

export function registerWebhookRoutes(
  app: FastifyInstance,
  state: PipedriveState,
  apiUrl: () => string,
): void {
  /** The webhooks of the company (getWebhooks). */
  app.get('/api/v1/webhooks', async () => ({
    status: 'ok',
    success: true,
    data: [...state.hooks.hooks.values()].map(hookJson),
  }))

  app.post('/api/v1/webhooks', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const subscriptionUrl = subscriptionUrlOf(body.subscription_url, new URL(apiUrl()).origin)
    if (!ACTIONS.includes(body.event_action as (typeof ACTIONS)[number])) {
      throw hookError(400, 'event_action', `event_action must be one of ${ACTIONS.join(', ')}`)
    }
    if (!OBJECTS.includes(body.event_object as (typeof OBJECTS)[number])) {
      throw hookError(400, 'event_object', `event_object must be one of ${OBJECTS.join(', ')}`)
    }
    // `name` is required, at most 255 characters (addWebhookRequest).
    if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > MAX_NAME) {
      throw hookError(400, 'name', `name is required, at most ${MAX_NAME} characters`)
    }
    // `version` 1.0 or 2.0, 2.0 by default since 2025-03-17 (addWebhookRequest `version`).
    const version = body.version ?? '2.0'
    if (version !== '1.0' && version !== '2.0') {
      throw hookError(400, 'version', 'version must be 1.0 or 2.0')
    }
    if (version === '1.0') {
      // Ours: the emulator sends v2 payloads only, so it refuses what it would never deliver faithfully.
      throw hookError(400, 'version', 'this emulator models webhooks v2 only')
    }
    const owner =
      body.user_id === undefined ? (state.userIds[0] as number) : (body.user_id as number | undefined)
    if (typeof owner !== 'number' || !state.userIds.includes(owner)) {
      throw hookError(400, 'user_id', 'user_id must be the id of a user of the company')
    }
    // "The maximum limit of webhooks is 40 different webhooks per user" (guide-for-webhooks-v2), refused with
    // a 422: "Unprocessable Entity | Webhooks limit reached" (https://pipedrive.readme.io/docs/core-api-concepts-http-status-codes),
    // "when the webhooks limit is reached for a user or an app and it's forbidden to create a new one"
    // (https://pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes; both read in the copies at
    // fav83/whatsapp2pipe@aa6f18b3c4460d2248c1e9132dcd833d19a8299b:Docs/External/Pipedrive/docs/). The body's
    // wording is not documented (ours, in the Webhooks API's `errors` shape).
    if (state.hooks.ownedBy(owner).length >= MAX_HOOKS_PER_USER) {
      throw hookError(422, 'user_id', `a user may have at most ${MAX_HOOKS_PER_USER} webhooks`)
    }
    const hook = state.hooks.add({
      ownerId: owner,
      companyId: state.companyId,
      eventAction: body.event_action as Hook['eventAction'],
      eventObject: body.event_object as string,
      subscriptionUrl,
      name: body.name,
      httpAuthUser: optionalText(body, 'http_auth_user'),
      httpAuthPassword: optionalText(body, 'http_auth_password'),
      addTime: Date.now(),
    })
    return reply.code(201).send({ status: 'ok', success: true, data: hookJson(hook) })
  })

  /** deleteWebhook: 200 `{status: 'ok', success: true}`; an unknown id is 404 `errors: {id: ['not found']}`. */
  app.delete('/api/v1/webhooks/:id', async (request) => {
    const id = Number((request.params as { id: string }).id)
    if (!Number.isInteger(id) || !state.hooks.hooks.delete(id)) throw hookError(404, 'id', 'not found')
    return { status: 'ok', success: true }
  })
}
