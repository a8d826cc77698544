import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { parseQueryDate } from '../engine/index.js'
import { badRequest, notFound } from '../errors.js'
import { requireWorkspaceKey } from '../http/auth.js'
import { errorBody, validationMessage } from '../http/errors.js'
import { LimitParam, OffsetParam } from '../models/index.js'
import type { Services } from '../services.js'
import { NativeBodyNotJson, type NativeReceipt, nativeCallOf } from './native.js'
import { notificationView } from './notifications.js'
import type { WebhookInput } from './service.js'
import { webhookView } from './webhook.js'

const S = () => Type.Optional(Type.String())

/**
 * Caps on the text a webhook stores, read back on every list and every check (before them, a 1 MiB
 * `hook_url` made each list of 100 webhooks 100 MB): an address as long as the authorization flow's
 * redirects, and far more field names and filter text than any model has.
 */
export const WEBHOOK_TEXT_LIMITS = { hook_url: 2048, fields: 4096, filter: 1024 } as const

/**
 * A year of minutes. Further, the next check's time was past what a JavaScript date can hold (each check of
 * the webhook failed writing it) and, on PostgreSQL, past the column's integer (a 500).
 */
export const MAX_INTERVAL_MINUTES = 525_600

/** The SDK's `Webhook`. Read-only fields it echoes back are accepted and ignored (sdk-contract R13). */
export const WebhookBody = Type.Object(
  {
    connection_id: Type.String({ minLength: 1 }),
    object_type: Type.String({ minLength: 1 }),
    event: Type.Unsafe<'created' | 'updated' | 'deleted'>({
      type: 'string',
      enum: ['created', 'updated', 'deleted'],
    }),
    hook_url: Type.Optional(Type.String({ maxLength: WEBHOOK_TEXT_LIMITS.hook_url })),
    interval: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_INTERVAL_MINUTES,
        description: 'Minutes between checks (virtual); at most a year.',
      }),
    ),
    page_max_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    fields: Type.Optional(
      Type.String({
        description: 'Comma-separated fields to deliver.',
        maxLength: WEBHOOK_TEXT_LIMITS.fields,
      }),
    ),
    filters: Type.Optional(
      Type.Record(Type.String(), Type.String({ maxLength: WEBHOOK_TEXT_LIMITS.filter })),
    ),
    webhook_type: Type.Optional(
      Type.Unsafe<'virtual' | 'native'>({ type: 'string', enum: ['virtual', 'native'] }),
    ),
    is_paused: Type.Optional(Type.Boolean()),
    id: S(),
    workspace_id: S(),
    integration_type: S(),
    environment: S(),
    is_healthy: Type.Optional(Type.Boolean()),
    is_beta: Type.Optional(Type.Boolean()),
    runs: Type.Optional(Type.Array(Type.String())),
    checked_at: S(),
    created_at: S(),
    updated_at: S(),
    meta: Type.Optional(Type.Unknown()),
    db_type: S(),
    db_url: S(),
    db_schema: S(),
    db_name_prefix: S(),
  },
  { $id: 'Webhook', additionalProperties: false },
)

const Bool = () => Type.Optional(Type.Boolean())
const Limit = () => Type.Optional(LimitParam())
const Offset = () => Type.Optional(OffsetParam())
const Order = () => Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')]))
const Sort = () => Type.Optional(Type.Union([Type.Literal('created_at'), Type.Literal('updated_at')]))

const WebhookListQuery = Type.Object(
  {
    connection_id: S(),
    created_lte: S(),
    env: S(),
    integration_type: S(),
    is_healthy: Bool(),
    limit: Limit(),
    object: S(),
    offset: Offset(),
    order: Order(),
    sort: Sort(),
    updated_gte: S(),
  },
  { additionalProperties: false },
)

const NotificationListQuery = Type.Object(
  { limit: Limit(), offset: Offset(), order: Order(), sort: Sort(), updated_gte: S() },
  { additionalProperties: false },
)

const CreateQuery = Type.Object({ include_all: Bool() }, { additionalProperties: false })
const IdParams = Type.Object({ id: Type.String() })

function isoParam(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const date = parseQueryDate(value)
  if (!date) throw badRequest(`${name}: '${value}' is not an ISO-8601 date`)
  return date.toISOString()
}

type ListParams = {
  limit?: number
  offset?: number
  order?: 'asc' | 'desc'
  sort?: 'created_at' | 'updated_at'
  updated_gte?: string
}

/** `/unified/webhook`, `/unified/notification`, and the endpoint providers call for native webhooks. */
export async function webhookRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const webhooks = services.webhooks
  await app.register(async (scope) => {
    scope.addSchema(WebhookBody)
    scope.addHook('onRequest', requireWorkspaceKey(services.apiKeys))
    const formatter =
      (allowed?: string[]) => (errors: Parameters<typeof validationMessage>[0], context: string) =>
        new Error(validationMessage(errors, context, allowed))
    const tags = ['webhook']
    const security = [{ jwt: [] }]
    const view = async (id: string, workspaceId: string) => {
      const w = await webhooks.store.get(workspaceId, id)
      if (!w) throw notFound(`webhook ${id} not found`)
      return webhookView(w, await webhooks.store.recentRuns(id))
    }

    scope.get(
      '/unified/webhook',
      {
        schema: { operationId: 'listUnifiedWebhooks', tags, security, querystring: WebhookListQuery },
        schemaErrorFormatter: formatter(Object.keys(WebhookListQuery.properties)),
      },
      async (request) => {
        const q = request.query as ListParams & {
          connection_id?: string
          created_lte?: string
          env?: string
          integration_type?: string
          is_healthy?: boolean
          object?: string
        }
        const createdLte = isoParam('created_lte', q.created_lte)
        const updatedGte = isoParam('updated_gte', q.updated_gte)
        const rows = await webhooks.store.list({
          workspaceId: request.workspaceId,
          ...(q.connection_id ? { connectionId: q.connection_id } : {}),
          ...(createdLte ? { createdLte } : {}),
          ...(q.env ? { environment: q.env } : {}),
          ...(q.integration_type ? { integrationType: q.integration_type } : {}),
          ...(q.is_healthy !== undefined ? { isHealthy: q.is_healthy } : {}),
          ...(q.object ? { objectType: q.object } : {}),
          ...(updatedGte ? { updatedGte } : {}),
          sort: q.sort ?? 'created_at',
          order: q.order ?? 'asc',
          limit: q.limit ?? 100,
          offset: q.offset ?? 0,
        })
        return rows.map((w) => webhookView(w))
      },
    )

    scope.post(
      '/unified/webhook',
      {
        schema: {
          operationId: 'createUnifiedWebhook',
          tags,
          security,
          querystring: CreateQuery,
          body: Type.Ref('Webhook'),
        },
        schemaErrorFormatter: formatter(Object.keys(WebhookBody.properties)),
      },
      async (request) => {
        const { include_all } = request.query as { include_all?: boolean }
        const created = await webhooks.service.create(
          request.workspaceId,
          request.body as WebhookInput,
          include_all === true,
        )
        return webhookView(created)
      },
    )

    scope.get(
      '/unified/webhook/:id',
      { schema: { operationId: 'getUnifiedWebhook', tags, security, params: IdParams } },
      async (request) => view((request.params as { id: string }).id, request.workspaceId),
    )

    for (const [method, operationId] of [
      ['PUT', 'updateUnifiedWebhook'],
      ['PATCH', 'patchUnifiedWebhook'],
    ] as const) {
      scope.route({
        method,
        url: '/unified/webhook/:id',
        schema: { operationId, tags, security, params: IdParams, body: Type.Ref('Webhook') },
        schemaErrorFormatter: formatter(Object.keys(WebhookBody.properties)),
        handler: async (request) => {
          const { id } = request.params as { id: string }
          await webhooks.service.update(request.workspaceId, id, request.body as WebhookInput)
          return view(id, request.workspaceId)
        },
      })
    }

    scope.delete(
      '/unified/webhook/:id',
      { schema: { operationId: 'removeUnifiedWebhook', tags, security, params: IdParams } },
      async (request, reply) => {
        await webhooks.service.remove(request.workspaceId, (request.params as { id: string }).id)
        return reply.code(200).send()
      },
    )

    for (const [method, operationId] of [
      ['PUT', 'updateUnifiedWebhookTrigger'],
      ['PATCH', 'patchUnifiedWebhookTrigger'],
    ] as const) {
      scope.route({
        method,
        url: '/unified/webhook/:id/trigger',
        schema: { operationId, tags, security, params: IdParams },
        handler: async (request, reply) => {
          await webhooks.service.trigger(request.workspaceId, (request.params as { id: string }).id)
          return reply.code(200).send()
        },
      })
    }

    scope.get(
      '/unified/notification',
      {
        schema: {
          operationId: 'listUnifiedNotifications',
          tags: ['notification'],
          security,
          querystring: NotificationListQuery,
        },
        schemaErrorFormatter: formatter(Object.keys(NotificationListQuery.properties)),
      },
      async (request) => {
        const q = request.query as ListParams
        const updatedGte = isoParam('updated_gte', q.updated_gte)
        const rows = await webhooks.notifications.list({
          workspaceId: request.workspaceId,
          ...(updatedGte ? { updatedGte } : {}),
          sort: q.sort ?? 'created_at',
          order: q.order ?? 'desc',
          limit: q.limit ?? 100,
          offset: q.offset ?? 0,
        })
        return rows.map(notificationView)
      },
    )
  })

  // Providers call this without a workspace key; each call is authenticated per subscription instead.
  await app.register(async (scope) => {
    // The provider's body is kept as received: a signature covers its exact bytes. As JSON or as text/plain
    // (the API reads JSON only, but a provider may label its JSON as text: it is taken as it always was here).
    scope.removeContentTypeParser('application/json')
    for (const type of ['application/json', 'text/plain']) {
      scope.addContentTypeParser(type, { parseAs: 'string' }, (_request, body, done) => {
        done(null, body)
      })
    }
    scope.post(
      '/native-webhooks/:id',
      { schema: { hide: true, params: IdParams } },
      async (request, reply) => {
        const rawBody = typeof request.body === 'string' ? request.body : ''
        const call = nativeCallOf(request.headers, rawBody)
        let receipt: NativeReceipt
        try {
          receipt = await webhooks.native.receive((request.params as { id: string }).id, call)
        } catch (err) {
          if (err instanceof NativeBodyNotJson) return reply.code(400).send(errorBody(400, err.message))
          throw err
        }
        if (receipt === 'stored') return reply.code(200).send({ status: 'ok' })
        if (receipt === 'unauthenticated')
          return reply
            .code(401)
            .send(errorBody(401, 'not signed for this webhook, or signed outside the time window it accepts'))
        // A provider retries a call it did not get a 2xx for: the change is read again then.
        if (receipt === 'unavailable')
          return reply
            .code(503)
            .send(
              errorBody(503, 'the changed records could not be read from the provider now; call again later'),
            )
        return reply.code(404).send(errorBody(404, 'no native webhook here'))
      },
    )
  })
}
