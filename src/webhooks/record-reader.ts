import type { ConnectionResolver, ResolvedConnection } from '../connections/index.js'
import {
  checkList,
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_OFFSET,
  parseFields,
  runOperation,
} from '../engine/index.js'
import type { RawListQuery } from '../engine/list-query.js'
import { ApiError } from '../errors.js'
import type { OperationLimits } from '../integrations/http-client.js'
import { modelOf, type ObjectModel } from '../models/index.js'
import type { DeliveredRecord } from './change-detection.js'
import type { StoredWebhook } from './webhook.js'

/** Fields change detection needs whatever the webhook delivers: they are read, then dropped if unasked. */
const NEEDED_FOR_DETECTION = ['id', 'created_at', 'updated_at']

/** The most records one check reads: every offset a list takes (MAX_OFFSET), and a default page past the last. */
const MAX_CHECK_RECORDS = MAX_OFFSET + DEFAULT_LIMIT

export interface ReadOptions {
  /** `updated_gte` for the read; undefined reads everything. */
  readonly updatedGte?: string
  /** Called between pages, so a long read keeps its lease. False stops the read. */
  readonly onPage: () => Promise<boolean>
  /** When the check's reads must end (its deadline): no provider call starts past it. */
  readonly until?: OperationLimits['until']
}

/**
 * Reads a webhook's object through the same engine path as `GET /{category}/{connection}/{object}`: field
 * selection, slow fields (only when named in the webhook's `fields`: a webhook never opts in to all of them),
 * permission checks and provider error mapping are the engine's, not re-implemented here.
 */
export class RecordReader {
  constructor(private readonly resolver: ConnectionResolver) {}

  async resolve(webhook: StoredWebhook): Promise<ResolvedConnection | undefined> {
    return this.resolver.resolve(webhook.workspace_id, webhook.connection_id)
  }

  /**
   * One record by id, through the same engine path as `GET /{category}/{connection}/{object}/{id}`, shaped by
   * the webhook's `fields`; undefined when the provider no longer has it.
   */
  async readOne(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    id: string,
  ): Promise<DeliveredRecord | undefined> {
    const model = modelOf(webhook.object_type)
    if (!model) throw new Error(`unknown object type ${webhook.object_type}`)
    try {
      return (await runOperation(this.resolver, {
        resolved,
        model,
        operation: 'get',
        id,
        query: webhook.fields ? { fields: webhook.fields } : {},
        slowFieldsOptIn: false,
      })) as DeliveredRecord
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return undefined
      throw err
    }
  }

  /**
   * Throws what the list a check makes (with `updatedGte`, or none) would answer before reading any record, as
   * the engine checks every list (engine `checkList`): the same 400, 403 or 501, for a webhook not yet made.
   */
  async checkRead(webhook: WebhookReads, resolved: ResolvedConnection, updatedGte?: string): Promise<void> {
    const model = modelOf(webhook.object_type)
    if (!model) throw new Error(`unknown object type ${webhook.object_type}`)
    await checkList(this.resolver, {
      resolved,
      model,
      query: pageQuery(webhook, model, 0, checkWindow(webhook, resolved), updatedGte),
      slowFieldsOptIn: false,
    })
  }

  async readAll(
    webhook: StoredWebhook,
    resolved: ResolvedConnection,
    options: ReadOptions,
  ): Promise<DeliveredRecord[]> {
    const model = modelOf(webhook.object_type)
    if (!model) throw new Error(`unknown object type ${webhook.object_type}`)
    const listed = parseFields(webhook.fields, model).listed
    const window = checkWindow(webhook, resolved)
    const out: DeliveredRecord[] = []
    // Set when the connector learnt from its provider that nothing follows the window it answered (see
    // HandlerContext.onListEnd): a list of whole provider pages ends on a full window, and asking for the next
    // window would read the last page again only to find it empty.
    let ended = false
    for (let offset = 0; ; ) {
      // The engine refuses offsets above MAX_OFFSET, as it does for every list: say so rather than truncate.
      if (offset > MAX_OFFSET) {
        throw new Error(
          `${model.objectType} holds more than ${offset} records; a check reads at most ${MAX_CHECK_RECORDS}`,
        )
      }
      const limit = Math.min(window, MAX_CHECK_RECORDS - offset)
      const records = (await runOperation(this.resolver, {
        resolved,
        model,
        operation: 'list',
        query: pageQuery(webhook, model, offset, limit, options.updatedGte),
        slowFieldsOptIn: false,
        ...(options.until ? { until: options.until } : {}),
        onListEnd: () => {
          ended = true
        },
      })) as Record<string, unknown>[]
      for (const record of records) out.push(listed ? onlyListed(record, listed, model) : record)
      if (ended || records.length < limit) break
      offset += records.length
      if (!(await options.onPage())) throw new Error('lost the poll lease during a long read')
    }
    return out
  }
}

/** Windows the connector serves whole, so that each provider page is read once (ObjectHandlers.pageSize). */
function checkWindow(webhook: WebhookReads, resolved: ResolvedConnection): number {
  return Math.min(MAX_LIMIT, resolved.integration.objects[webhook.object_type]?.pageSize ?? DEFAULT_LIMIT)
}

/** What of a webhook decides the lists its checks make. */
export type WebhookReads = Pick<StoredWebhook, 'object_type' | 'filters' | 'fields'>

/**
 * The list query of one page a check reads: the webhook's filters, its `fields` with those change detection
 * needs, and `updated_gte` when the check reads only what changed.
 */
function pageQuery(
  webhook: WebhookReads,
  model: ObjectModel,
  offset: number,
  limit: number,
  updatedGte: string | undefined,
): RawListQuery {
  const listed = parseFields(webhook.fields, model).listed
  const fields = listed
    ? [...new Set([...listed, ...NEEDED_FOR_DETECTION.filter((f) => model.fieldNames.includes(f))])].join(',')
    : undefined
  return {
    ...webhook.filters,
    limit: String(limit),
    offset: String(offset),
    ...(fields ? { fields } : {}),
    ...(updatedGte ? { updated_gte: updatedGte } : {}),
  }
}

/** Drops what was read only for change detection; `id` always stays (a change is useless without it). */
function onlyListed(
  record: Record<string, unknown>,
  listed: ReadonlySet<string>,
  model: ObjectModel,
): DeliveredRecord {
  const out: Record<string, unknown> = {}
  const wantsRaw = listed.has('raw') || [...listed].some((f) => f.startsWith('raw.'))
  for (const [key, value] of Object.entries(record)) {
    if (key === 'id' || listed.has(key) || (key === 'raw' && wantsRaw)) out[key] = value
    else if (!model.fieldNames.includes(key)) out[key] = value
  }
  return out
}
