import type { ConnectionResolver, ResolvedConnection } from '../connections/index.js'
import { ApiError, badRequest, notImplemented, ProviderError, ProviderTimeoutError } from '../errors.js'
import type { RequestCursors } from '../integrations/cursors.js'
import type { OperationLimits } from '../integrations/http-client.js'
import type {
  FieldPlan,
  HandlerContext,
  ListQuery,
  ObjectHandlers,
  WriteBody,
} from '../integrations/types.js'
import { type ObjectModel, type Operation, permissionFor, type UnifiedRecord } from '../models/index.js'
import { withCreateDefaults, withListDefaults } from './defaults.js'
import { type FieldSelection, isShapedPage, parseFields, planFields, recordShaper } from './fields.js'
import { type RawListQuery, type ReadListQuery, readListQuery, supportedListQuery } from './list-query.js'
import { apiErrorFromConnector } from './provider-errors.js'
import { parseRawParams, refuseOwnedRaw } from './raw-params.js'
import { type ReportAsk, withReportIds } from './report-ids.js'
import { forgetProperties } from './scope.js'

export interface OperationRequest {
  readonly resolved: ResolvedConnection
  readonly model: ObjectModel
  readonly operation: Operation
  readonly id?: string
  readonly query: RawListQuery
  readonly body?: WriteBody
  readonly slowFieldsOptIn: boolean
  /** An earlier end than the request's own deadline for the operation's provider calls (a webhook check's). */
  readonly until?: OperationLimits['until']
  /** Given to a list handler as `ctx.onListEnd`: told when the provider said no record follows the window. */
  readonly onListEnd?: () => void
}

/** Finds the handler or answers 501 naming the integration and the operation. */
function handlersFor(req: OperationRequest): ObjectHandlers {
  const { integration } = req.resolved
  const handlers = integration.objects[req.model.objectType]
  if (!handlers || typeof handlers[req.operation] !== 'function') {
    throw notImplemented(
      `${integration.name} (${integration.type}) does not support ${req.operation} on ${req.model.objectType}`,
    )
  }
  return handlers
}

function checkPermission(req: OperationRequest): void {
  const needed = permissionFor(req.model, req.operation)
  if (!req.resolved.connection.permissions.includes(needed)) {
    throw new ApiError(
      403,
      `this connection was not granted ${needed}; update its permissions or re-authorize it`,
    )
  }
}

/** What one operation's handler is given, once the request was checked against the model and the grant. */
interface Prepared {
  readonly handlers: ObjectHandlers
  readonly ctx: HandlerContext
  readonly selection: FieldSelection
  readonly plan: FieldPlan
  readonly listRead: ReadListQuery | undefined
  /** The handler's cursors (`ctx.cursors`), to store once the operation ends. */
  readonly cursors: RequestCursors
}

/**
 * Checks what the caller asked against the model first (a malformed request is the same 400 on every
 * connection, whatever its integration supports: README, "Behaviour where the spec is silent"), then the
 * handler and the grant, and builds the handler's context.
 */
function prepare(resolver: ConnectionResolver, req: OperationRequest): Prepared {
  const { resolved, model, operation } = req
  const selection: FieldSelection = parseFields(req.query.fields as string | string[] | undefined, model)
  const listRead = operation === 'list' ? readListQuery(req.query, model) : undefined
  const rawParams = parseRawParams(req.query.raw)
  const handlers = handlersFor(req)
  checkPermission(req)
  const plan = planFields(selection, handlers.slowFields ?? [], req.slowFieldsOptIn)
  const cursors = resolver.cursors.forConnection(resolved.connection.id, resolved.client.baseUrl)
  const ctx: HandlerContext = {
    client: resolved.client.forOperation(req.until ? { until: req.until } : {}),
    credentials: resolved.connection.credentials,
    settings: resolved.connection.settings,
    connectionId: resolved.connection.id,
    fields: plan,
    rawParams: refuseOwnedRaw(
      rawParams,
      resolved.integration.name,
      [resolved.integration.rawOwned, handlers.rawOwned],
      resolved.integration.rawParamField,
    ),
    cursors,
    ...(req.onListEnd ? { onListEnd: req.onListEnd } : {}),
  }
  return { handlers, ctx, selection, plan, listRead, cursors }
}

/**
 * The query a list handler is called with: the model's read of it, refused (501) where the integration cannot
 * apply a parameter, completed with what the engine fills in (the connection's only property, a default
 * window), then checked by the handler's own `checkList`, given the handler's context (what the connection
 * stores, the request's raw parameters) so that it keeps exactly the rules the list keeps without a provider call.
 */
async function handlerListQuery(
  req: OperationRequest,
  { handlers, ctx, listRead }: Prepared,
): Promise<ListQuery> {
  const { integration, connection } = req.resolved
  const parsed = supportedListQuery(listRead!, req.model, handlers, integration)
  const mayListProperties = connection.permissions.includes('analytics_property_read')
  const query = await withListDefaults(parsed, handlers, integration, req.model, ctx, mayListProperties)
  handlers.checkList?.(query, Date.now(), ctx)
  return query
}

/**
 * Checks a list exactly as `runOperation` would before its handler reads any record (the model's rules, the
 * grant, what the integration can apply, the defaults the engine fills, the handler's `checkList`), and
 * throws what that list would answer. Filling the only property may list the connection's properties, as
 * the list itself does; no record is read. For lists made later, away from any caller: a webhook's checks.
 */
export async function checkList(
  resolver: ConnectionResolver,
  req: Omit<OperationRequest, 'operation' | 'id' | 'body'>,
): Promise<void> {
  const list: OperationRequest = { ...req, operation: 'list' }
  await handlerListQuery(list, prepare(resolver, list))
}

/**
 * Runs one unified operation against the connection's provider: plan fields, call the integration's
 * handler, map provider failures, and shape the records for the response.
 */
export async function runOperation(resolver: ConnectionResolver, req: OperationRequest): Promise<unknown> {
  const { resolved, model, operation } = req
  const prepared = prepare(resolver, req)
  const { handlers, ctx, selection, plan, cursors } = prepared
  const slowFields = handlers.slowFields ?? []
  const shape = recordShaper(model, selection, plan, slowFields)
  const what = `${operation} ${model.objectType}${req.id ? ` ${req.id}` : ''}`
  let answered: UnifiedRecord | UnifiedRecord[] | undefined
  try {
    answered = await call(req, prepared)
  } catch (err) {
    // The cursors of the pages walked before the failure still hold; the failure is what is answered.
    await cursors.flush().catch(() => undefined)
    const failure = await mapFailure(resolver, resolved, err, what)
    throw operation === 'list' || operation === 'get' ? failure : writeOutcomeUnknown(failure, err)
  }
  // Stored before the response, so the next page finds them on any process; a store failure is not
  // the provider's and is not mapped as one.
  try {
    await cursors.flush()
  } catch (err) {
    throw cursorsNotStored(err)
  }
  try {
    const result = checkedResult(operation, answered)
    // Forgotten again once written: a list that raced the write may have cached the old properties.
    if (model.objectType === 'analytics_property' && operation !== 'list' && operation !== 'get')
      forgetProperties(ctx.connectionId)
    await resolver.markHealthyIfNeeded(resolved)
    if (result === undefined) return undefined
    if (!Array.isArray(result)) return shape(result)
    // A page built in the response's shape is sent as it is, where the request listed its fields and no
    // `raw`: only there is the shaper's work what shapedPage promises (slow fields and `raw` stay its own).
    const listedOnly = selection.listed !== undefined && !selection.raw && selection.rawNames.length === 0
    return listedOnly && isShapedPage(result) ? result : result.map(shape)
  } catch (err) {
    throw await mapFailure(resolver, resolved, err, what)
  }
}

/**
 * A list whose page was read but whose cursors (where the next page starts) could not be stored: the page is
 * not answered, since the README promises that where a page ended is stored before it is answered (another
 * process would otherwise walk the provider again to the next page's offset, and a Matomo listing would
 * start anew as of now). The store's own error goes to the log only.
 */
function cursorsNotStored(err: unknown): ApiError {
  return new ApiError(
    503,
    'the page was read from the provider, but the store could not record where it ended, which the next ' +
      'page needs; retry the request',
    {},
    {},
    { cause: err },
  )
}

/**
 * A write whose provider call got no answer in time may still have been made there: the 504 says so, so that
 * a caller reads before sending it again (a create sent twice makes two records). The README's write notes.
 */
function writeOutcomeUnknown(failure: ApiError, err: unknown): ApiError {
  if (!(err instanceof ProviderTimeoutError)) return failure
  return new ApiError(
    failure.statusCode,
    `${failure.message}; the provider may still have made the change: read it back before sending it again`,
    failure.headers,
    failure.extra,
    { cause: err },
  )
}

/** What a connector's failure answers; a provider's 401 marks the connection unhealthy first. */
async function mapFailure(
  resolver: ConnectionResolver,
  resolved: ResolvedConnection,
  err: unknown,
  what: string,
): Promise<ApiError> {
  await markUnhealthyIfRefused(resolver, resolved, err)
  return apiErrorFromConnector(err, resolved.integration, what, resolved.connection.settings)
}

/**
 * Marks the connection unhealthy when `err` is the provider refusing its credentials (a ProviderError 401:
 * from the provider, or from a token endpoint refusing the connection's client), for every route that
 * answers such a failure (the unified routes, and passthrough when its auth headers could not be had).
 */
export async function markUnhealthyIfRefused(
  resolver: ConnectionResolver,
  resolved: ResolvedConnection,
  err: unknown,
): Promise<void> {
  if (err instanceof ProviderError && err.status === 401) await resolver.markUnhealthy(resolved, 401)
}

const isRecord = (value: unknown): value is UnifiedRecord =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const hasId = (record: UnifiedRecord): boolean =>
  (typeof record.id === 'string' && record.id !== '') || typeof record.id === 'number'

/** What a handler answered, checked to be what the operation promises: records, a list of them, or nothing. */
function checkedResult(
  operation: Operation,
  result: UnifiedRecord | UnifiedRecord[] | undefined,
): UnifiedRecord | UnifiedRecord[] | undefined {
  const ok =
    operation === 'list'
      ? Array.isArray(result) && result.every(isRecord)
      : operation === 'remove'
        ? true
        : isRecord(result)
  // Only the kind of value is named: the log must not receive the provider's data.
  if (ok && operation === 'get' && !hasId(result as UnifiedRecord)) {
    // Every model has an id, and a get names one: an answer the connector found none in is one it could not
    // read (a provider's object of another shape answered 200 with `{}`).
    throw new TypeError('the get handler answered a record without an id')
  }
  if (!ok) {
    const kind = result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result
    throw new TypeError(`the ${operation} handler answered ${kind}, not what ${operation} promises`)
  }
  return operation === 'remove' ? undefined : result
}

/**
 * At most `limit` of the records a list handler returned, the first ones. A handler pages as its provider
 * answers, and a provider of the connection's creator (a self-hosted `api_url`) may answer a page far
 * larger than asked: each record past `limit` would be shaped and written out for nothing, holding every
 * request of the process meanwhile. A cut page is a new array, so it is shaped (not sent as `shapedPage`).
 */
function pageOf<T>(records: T, limit: number): T {
  return Array.isArray(records) && records.length > limit ? (records.slice(0, limit) as T) : records
}

async function call(
  req: OperationRequest,
  prepared: Prepared,
): Promise<UnifiedRecord | UnifiedRecord[] | undefined> {
  const { handlers, ctx } = prepared
  const id = req.id ?? ''
  const body = req.body ?? {}
  const { integration, connection } = req.resolved
  const mayListProperties = connection.permissions.includes('analytics_property_read')
  const writesProperty =
    req.model.objectType === 'analytics_property' && req.operation !== 'list' && req.operation !== 'get'
  if (writesProperty) forgetProperties(ctx.connectionId)
  switch (req.operation) {
    case 'list': {
      const query = await handlerListQuery(req, prepared)
      const records = pageOf(await handlers.list!(ctx, query), query.limit)
      return req.model.objectType === 'analytics_report' && Array.isArray(records)
        ? withReportIds(records, reportAsk(query))
        : records
    }
    case 'get':
      return handlers.get!(ctx, id)
    case 'create': {
      const complete = await withCreateDefaults(
        body,
        handlers,
        integration,
        req.model,
        ctx,
        mayListProperties,
      )
      const created = await handlers.create!(ctx, complete)
      // The generated anonymous id is the caller's only handle on the visitor: always hand it back.
      return complete.visitor_id !== body.visitor_id && created && created.visitor_id === undefined
        ? { ...created, visitor_id: complete.visitor_id }
        : created
    }
    case 'update':
      return handlers.update!(ctx, id, body)
    case 'patch':
      return handlers.patch!(ctx, id, body)
    case 'remove':
      await handlers.remove!(ctx, id)
      return undefined
    default:
      throw badRequest(`unknown operation ${String(req.operation)}`)
  }
}

/** The report filters that identify a report, as strings (see report-ids.ts). */
function reportAsk(query: ListQuery): ReportAsk {
  const text = (name: string) => {
    const v = query.filters[name]
    return typeof v === 'string' ? v.trim().toUpperCase() : undefined
  }
  const property = query.filters.property_id
  const when = (name: string) => {
    const v = query.filters[name]
    return v instanceof Date ? { [name]: v.toISOString() } : {}
  }
  return {
    ...(typeof property === 'string' ? { property_id: property } : {}),
    ...when('start_gte'),
    ...when('end_lt'),
    ...(text('dimension') ? { dimension: text('dimension') } : {}),
    ...(text('type') ? { type: text('type') } : {}),
  }
}
