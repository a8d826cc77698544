import {
  COMMON_LIST_PARAMS,
  modelOf,
  OPERATIONS,
  permissionsOf,
  WEBHOOK_PERMISSION,
} from '../models/index.js'
import { authFieldsOf } from './auth-methods.js'
import type { IntegrationDefinition, ObjectHandlers, WebhookEventName } from './types.js'

/** Unified.to's vocabulary: `supported-required` is a parameter the integration cannot do without. */
type Support = 'supported' | 'supported-required' | 'not-supported'

export interface IntegrationSupport {
  readonly methods: Record<string, boolean>
  readonly slow_fields: string[]
  /** Body fields `create` needs (`supported-required`); fields not named here are optional where writable. */
  readonly outbound_fields?: Record<string, Support>
  /** The window (in days, ending today) a list without `start_gte`/`updated_gte` covers. */
  readonly default_window_days?: number
  /** Which kinds of webhook can watch each event (Unified.to's `webhook_events`). */
  readonly webhook_events?: Partial<Record<WebhookEventName, ('virtual' | 'native')[]>>
  readonly [listParam: `list_${string}`]: Support
}

const WEBHOOK_EVENTS: readonly WebhookEventName[] = ['created', 'updated', 'deleted']

/**
 * Which kinds of webhook can watch `event` on an object: virtual (polling) where it can be listed, and
 * `deleted` only where its listing is the complete set; native where the provider pushes that event. None
 * for `updated` on records that never change once listed.
 */
export function webhookKindsOf(
  handlers: ObjectHandlers | undefined,
  event: WebhookEventName,
): { readonly virtual: boolean; readonly native: boolean } {
  if (!handlers || (event === 'updated' && handlers.recordsNeverChange))
    return { virtual: false, native: false }
  return {
    virtual: typeof handlers.list === 'function' && (event !== 'deleted' || handlers.listIsComplete === true),
    native: handlers.nativeWebhooks?.events.includes(event) ?? false,
  }
}

function webhookEventsOf(handlers: ObjectHandlers): IntegrationSupport['webhook_events'] {
  const out: Partial<Record<WebhookEventName, ('virtual' | 'native')[]>> = {}
  for (const event of WEBHOOK_EVENTS) {
    const kinds = webhookKindsOf(handlers, event)
    const list = [
      ...(kinds.virtual ? ['virtual' as const] : []),
      ...(kinds.native ? ['native' as const] : []),
    ]
    if (list.length > 0) out[event] = list
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** The SDK's `Integration` shape, generated from the definition so the matrix cannot drift from the code. */
export interface IntegrationView {
  type: string
  name: string
  categories: string[]
  description?: string
  web_url?: string
  api_docs_url?: string
  color?: string
  rate_limit_description?: string
  is_active?: boolean
  token_names?: string[]
  token_instructions?: string[]
  support?: Record<string, IntegrationSupport>
  permissions?: string[]
}

export function supportMatrix(integration: IntegrationDefinition): Record<string, IntegrationSupport> {
  const matrix: Record<string, IntegrationSupport> = {}
  for (const [objectType, handlers] of Object.entries(integration.objects)) {
    const model = modelOf(objectType)
    if (!model) continue
    const methods: Record<string, boolean> = {}
    for (const op of OPERATIONS)
      if (model.operations.includes(op)) methods[op] = typeof handlers[op] === 'function'
    const support: Record<string, unknown> = { methods, slow_fields: [...(handlers.slowFields ?? [])] }
    if (handlers.list) {
      const required = handlers.requiredParams ?? []
      const mark = (param: string, ok: boolean): Support =>
        !ok ? 'not-supported' : required.includes(param) ? 'supported-required' : 'supported'
      for (const param of COMMON_LIST_PARAMS) {
        const ok = param === 'limit' || param === 'offset' || handlers.listParams.includes(param)
        support[`list_${param}`] = mark(param, ok)
      }
      for (const filter of Object.keys(model.filters)) {
        support[`list_${filter}`] = mark(filter, handlers.filters.includes(filter))
      }
      for (const field of handlers.sortFields ?? []) support[`list_sort_by_${field}`] = 'supported'
      if (handlers.defaultWindowDays !== undefined) support.default_window_days = handlers.defaultWindowDays
    }
    const webhookEvents = webhookEventsOf(handlers)
    if (webhookEvents) support.webhook_events = webhookEvents
    if (handlers.create && handlers.requiredFields?.length) {
      support.outbound_fields = Object.fromEntries(
        handlers.requiredFields.map((f) => [f, 'supported-required' as const]),
      )
    }
    matrix[objectType] = support as unknown as IntegrationSupport
  }
  return matrix
}

/**
 * The permissions a connection of this integration can hold: those of the operations it implements, then
 * `webhook` when any of its objects has native webhooks (subscribing at the provider).
 */
export function integrationPermissions(integration: IntegrationDefinition): string[] {
  const out: string[] = []
  let pushes = false
  for (const [objectType, handlers] of Object.entries(integration.objects)) {
    const model = modelOf(objectType)
    if (!model) continue
    out.push(
      ...permissionsOf(
        model,
        model.operations.filter((op) => typeof handlers[op] === 'function'),
      ),
    )
    if (handlers.nativeWebhooks) pushes = true
  }
  if (pushes) out.push(WEBHOOK_PERMISSION)
  return out
}

export function integrationView(integration: IntegrationDefinition, summary: boolean): IntegrationView {
  const view: IntegrationView = {
    type: integration.type,
    name: integration.name,
    categories: [...integration.categories],
    web_url: integration.webUrl,
    color: integration.color,
    is_active: true,
  }
  if (summary) return view
  return {
    ...view,
    description: integration.description,
    api_docs_url: integration.apiDocsUrl,
    rate_limit_description: integration.rateLimitDescription,
    token_names: authFieldsOf(integration).map((f) => f.name),
    token_instructions: authFieldsOf(integration).map((f) => f.description ?? f.label),
    support: supportMatrix(integration),
    permissions: integrationPermissions(integration),
  }
}
