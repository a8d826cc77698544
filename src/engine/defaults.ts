import { randomUUID } from 'node:crypto'
import { badRequest } from '../errors.js'
import type {
  HandlerContext,
  IntegrationDefinition,
  ListQuery,
  ObjectHandlers,
  WriteBody,
} from '../integrations/types.js'
import type { ObjectModel } from '../models/index.js'
import { singlePropertyId } from './scope.js'

const DAY_MS = 86_400_000

/**
 * The scope the engine fills in itself when the connection has exactly one (list filter and create field
 * alike): the matrix marks it `supported-required` for the providers that need it, but a caller of a
 * single-property connection need not give it, so generated tool schemas never make it mandatory.
 */
export const SINGLE_SCOPE_PARAM = 'property_id'

/** Filters that name records of one property already, so the provider needs no `property_id` beside them. */
const NARROWER_SCOPES = ['session_id', 'visitor_id'] as const

/**
 * Fills what the provider needs but the caller need not know about: the connection's only property when
 * the provider lists per property, and a default time window when it lists by window only.
 */
export async function withListDefaults(
  query: ListQuery,
  handlers: ObjectHandlers,
  integration: IntegrationDefinition,
  model: ObjectModel,
  ctx: HandlerContext,
  mayListProperties: boolean,
): Promise<ListQuery> {
  let filters = query.filters
  const needsScope =
    (handlers.requiredParams ?? []).includes(SINGLE_SCOPE_PARAM) &&
    filters[SINGLE_SCOPE_PARAM] === undefined &&
    !NARROWER_SCOPES.some((f) => filters[f] !== undefined)
  if (needsScope) {
    const property = await singlePropertyId(
      integration,
      ctx,
      `lists ${model.plural.replace(/^Analytics/, '').toLowerCase()}`,
      mayListProperties,
    )
    filters = { ...filters, [SINGLE_SCOPE_PARAM]: property }
  }
  const days = handlers.defaultWindowDays
  if (days !== undefined && filters.start_gte === undefined && query.updated_gte === undefined) {
    const end = filters.end_lt instanceof Date ? filters.end_lt.getTime() : Date.now()
    filters = { ...filters, start_gte: new Date(Math.floor(end / DAY_MS) * DAY_MS - days * DAY_MS) }
  }
  return filters === query.filters ? query : { ...query, filters }
}

/** Reads `a` or `raw.a` from a write body. */
function valueAt(body: WriteBody, field: string): unknown {
  if (!field.startsWith('raw.')) return body[field]
  const raw = body.raw
  return raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[field.slice(4)] : undefined
}

const missing = (value: unknown) => value === undefined || value === null || value === ''

/**
 * Completes a create body the same way on every integration: the only property when the provider needs
 * one, an anonymous `visitor_id` when the provider needs a distinct id; then refuses (400) a body still
 * missing a field the integration declares required, naming every missing field.
 */
export async function withCreateDefaults(
  body: WriteBody,
  handlers: ObjectHandlers,
  integration: IntegrationDefinition,
  model: ObjectModel,
  ctx: HandlerContext,
  mayListProperties: boolean,
): Promise<WriteBody> {
  let out = body
  const required = handlers.requiredFields ?? []
  if (required.includes(SINGLE_SCOPE_PARAM) && missing(out[SINGLE_SCOPE_PARAM])) {
    const thing = model.singular.replace(/^Analytics/, '').toLowerCase()
    out = {
      ...out,
      [SINGLE_SCOPE_PARAM]: await singlePropertyId(
        integration,
        ctx,
        `records each ${thing}`,
        mayListProperties,
      ),
    }
  }
  if (handlers.anonymousVisitor && missing(out.visitor_id))
    out = { ...out, visitor_id: `anon-${randomUUID()}` }
  const absent = required.filter((f) => missing(valueAt(out, f)))
  if (absent.length > 0) {
    throw badRequest(
      `${absent.join(', ')} ${absent.length === 1 ? 'is' : 'are'} required: ${integration.name} cannot create a ` +
        `${model.singular.replace(/^Analytics/, '').toLowerCase()} without ${absent.length === 1 ? 'it' : 'them'}`,
    )
  }
  return out
}
