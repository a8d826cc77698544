import type { FastifyInstance } from 'fastify'
import { GATEWAY } from './auth.js'
import { webhookError } from './errors.js'
import { type Hook, type HookEvent, hookTime } from './hooks.js'
import type { BamboohrState } from './state.js'

/**
 * The Webhooks API (list-webhooks, create-webhook, get-webhook, delete-webhook, list-monitor-fields in
 * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml), at the API-key gateway.
 */
const FIELD_EVENTS: readonly HookEvent[] = [
  'employee_with_fields.updated',
  'employee_with_fields.deleted',
  'employee_with_fields.created',
]
const EVENT_TYPES = [
  ...FIELD_EVENTS,
  'company-integrations.updated',
  'employee.created',
  'employee.updated',
  'employee.deleted',
  'company.updated',
  'company.deleted',
]

/** `WebHookResponse`: the configuration, never the private key. */
function hookJson(h: Hook) {
  return {
    id: h.id,
    name: h.name,
    created: hookTime(h.created),
    lastSent: h.lastSent === null ? null : hookTime(h.lastSent),
    monitorFields: h.monitorFields,
    postFields: h.postFields,
    url: h.url,
    format: h.format,
    includeCompanyDomain: h.includeCompanyDomain,
    events: h.events,
  }
}

const badRequest = (...issues: string[]) => webhookError(400, 'Invalid request body', { issues })

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw badRequest(`${field} must be an array of strings`)
  }
  return value as string[]
}

function hookOf(state: BamboohrState, id: string): Hook {
  const hook = state.hooks.hooks.get(id)
  if (!hook) throw webhookError(404, `No webhook was found with ID: ${id}.`)
  return hook
}

export function registerWebhookRoutes(app: FastifyInstance, state: BamboohrState): void {
  /**
   * Monitorable fields: stored employee fields the key's user may read (computed ones are not). Each is
   * `{id, name, alias}` with `id` "The field ID, returned as a string" (`list-monitor-fields`,
   * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml, example `'4175'`).
   */
  app.get(`${GATEWAY}/webhooks/monitor_fields`, async () => ({
    fields: state
      .monitorableFields()
      .map((alias) => ({ id: String(state.fieldId(alias)), name: alias, alias })),
  }))

  /**
   * Postable fields: every field the key's user may read, computed ones included, each `{alias, name, type,
   * id, pageId, tableId}` with `id` an integer, plus the `tables` and `pages` they name (`get-post-fields`,
   * `WebHookPostFieldResponseObject` in
   * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml). Field types and pages
   * are ours: every field is `text` on one page, in no table.
   */
  app.get(`${GATEWAY}/webhooks/post-fields`, async () => ({
    fields: state.readableFields().map((alias) => ({
      alias,
      name: alias,
      type: 'text',
      id: state.fieldId(alias),
      pageId: 1,
      tableId: null,
    })),
    tables: [],
    pages: [{ id: 1, name: 'Personal' }],
  }))

  app.get(`${GATEWAY}/webhooks`, async () => ({
    webhooks: [...state.hooks.hooks.values()].map((h) => ({
      id: h.id,
      name: h.name,
      created: hookTime(h.created),
      lastSent: h.lastSent === null ? null : hookTime(h.lastSent),
      url: h.url,
    })),
  }))

  app.get(`${GATEWAY}/webhooks/:id`, async (request) =>
    hookJson(hookOf(state, (request.params as { id: string }).id)),
  )

  /**
   * Create: `name`, `url` (https only) and `format` required; `events` default to the three field-based
   * ones and may not mix them with the event-based ones; `monitorFields` non-empty when an update event is
   * asked; fields the user may not read, or that do not exist, are a 403 listing them. 201 with the
   * webhook and its `privateKey`, "only returned at creation time".
   */
  app.post(`${GATEWAY}/webhooks`, async (request, reply) => {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<
      string,
      unknown
    >
    const issues: string[] = []
    if (typeof body.name !== 'string' || body.name.trim() === '') issues.push('name is required')
    const url = typeof body.url === 'string' ? body.url : ''
    // "The url the webhook should send data to (must begin with https://)"; the emulator takes http://
    // only when started with `insecureHookUrls` (tests on one machine have no certificate).
    const schemeOk =
      url.startsWith('https://') || (state.options.insecureHookUrls && url.startsWith('http://'))
    if (!schemeOk) issues.push('url must begin with https://')
    if (body.format === undefined) issues.push('format is required')
    else if (body.format !== 'json' && body.format !== 'form-encoded')
      issues.push('format must be json or form-encoded')
    const events = stringList(body.events, 'events') ?? [...FIELD_EVENTS]
    const unknownEvents = events.filter((e) => !EVENT_TYPES.includes(e))
    if (unknownEvents.length > 0) issues.push(`unknown events: ${unknownEvents.join(', ')}`)
    const fieldBased = events.filter((e) => e.startsWith('employee_with_fields.'))
    if (fieldBased.length > 0 && fieldBased.length < events.length) {
      issues.push('employee_with_fields events cannot be mixed with other events')
    }
    const monitorFields = stringList(body.monitorFields, 'monitorFields') ?? []
    if (
      events.some((e) => e.endsWith('.updated') && e.startsWith('employee')) &&
      monitorFields.length === 0
    ) {
      issues.push('monitorFields is required for update events')
    }
    if (body.postFields !== undefined && (typeof body.postFields !== 'object' || body.postFields === null)) {
      issues.push('postFields must be an object')
    }
    if (issues.length > 0) throw badRequest(...issues)
    // Ours: the emulator sends field-based events as JSON only; the others are refused, not silently kept.
    if (fieldBased.length !== events.length || body.format !== 'json') {
      throw badRequest('this emulator models field-based events in json format only')
    }
    const postFields = (body.postFields ?? {}) as Record<string, unknown>
    // Fields that do not exist are `unknownFields`; existing ones the user may not read (or, to monitor,
    // that are computed) are listed under `monitorFields` / `postFields` (create-webhook's 403).
    const known = new Set([...state.readableFields(), ...state.restricted])
    const readable = state.readableFields()
    const monitorable = state.monitorableFields()
    const asked = [...monitorFields, ...Object.keys(postFields)]
    const unknownFields = [...new Set(asked.filter((f) => !known.has(f)))]
    const badMonitor = monitorFields.filter((f) => known.has(f) && !monitorable.includes(f))
    const badPost = Object.keys(postFields).filter((f) => known.has(f) && !readable.includes(f))
    if (unknownFields.length + badMonitor.length + badPost.length > 0) {
      const named = (names: string[]) => names.map((name) => ({ id: state.fieldId(name), name }))
      throw webhookError(403, 'Permission denied to the following fields', {
        ...(badMonitor.length > 0 ? { monitorFields: named(badMonitor) } : {}),
        ...(badPost.length > 0 ? { postFields: named(badPost) } : {}),
        ...(unknownFields.length > 0
          ? { unknownFields: unknownFields.map((name) => ({ id: null, name })) }
          : {}),
      })
    }
    const hook = state.hooks.add({
      name: (body.name as string).trim(),
      url,
      format: 'json',
      monitorFields,
      postFields: Object.fromEntries(Object.entries(postFields).map(([k, v]) => [k, String(v)])),
      events: events as HookEvent[],
      includeCompanyDomain: body.includeCompanyDomain === true,
    })
    return reply.code(201).send({ ...hookJson(hook), privateKey: hook.privateKey })
  })

  /** Delete: 200 with a plain-text confirmation; an unknown id is 404. */
  app.delete(`${GATEWAY}/webhooks/:id`, async (request, reply) => {
    const { id } = request.params as { id: string }
    hookOf(state, id)
    state.hooks.hooks.delete(id)
    return reply.type('text/plain').send('Web hook has been deleted.')
  })
}
