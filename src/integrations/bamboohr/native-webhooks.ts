import { createHmac } from 'node:crypto'
import { ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { headerOf, secretsEqual } from '../native-auth.js'
import { sameTarget } from '../native-urls.js'
import type { HandlerContext, NativeCall, NativeWebhookSupport, WebhookEventName } from '../types.js'
import { companyIdOf } from './company.js'
import { EMPLOYEE_FIELDS, fromBamboohrEmployee } from './mappers.js'
import type { BamboohrEmployee } from './types.js'

/**
 * Employee changes pushed by a BambooHR permissioned webhook (`POST /v1/webhooks/`: `name`, `url`,
 * `format`, `events`, `monitorFields`, `postFields`; 201 with `id` and the `privateKey`, "only returned at
 * creation time"; `DELETE /v1/webhooks/{id}`: create-webhook, delete-webhook in
 * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml).
 *
 * The field-based events (`employee_with_fields.*`) are used: they are deprecated in favour of `employee.*`,
 * which "will remain available for the foreseeable future", but theirs is the payload that carries the
 * employee's fields (`{"employees": [{id, action, timestamp, fields, changedFields}]}`,
 * https://documentation.bamboohr.com/docs/field-based-webhooks), so an update costs no read back. `postFields`
 * name each field by its own API name, so `fields` reads like a report row. Only updates carry them: "For
 * Created and Deleted actions the payload will always contain empty changedFields and fields objects"
 * (https://documentation.bamboohr.com/docs/global-webhooks, "Webhook Data Format"). So a created employee is
 * read back by id, and a deleted one, which can no longer be read, is delivered as its id.
 *
 * Calls are signed: `X-BambooHR-Signature` is the hex HMAC-SHA256, keyed with the private key, of the raw
 * body followed by `X-BambooHR-Timestamp` (https://documentation.bamboohr.com/docs/webhooks, "Security").
 */
const ACTIONS: Readonly<Record<WebhookEventName, string>> = {
  created: 'Created',
  updated: 'Updated',
  deleted: 'Deleted',
}

/**
 * The fields a webhook posts: those reads ask for, except `payPer`, which BambooHR's field list does not
 * name (`paidPer` is its name there): a report leaves an unknown field out, a webhook naming one is refused
 * with a 403 listing it (create-webhook, `unknownFields`).
 */
export const POSTED_FIELDS = EMPLOYEE_FIELDS.filter((f) => f !== 'payPer')
/** Computed fields are posted but cannot be monitored: a change shows in the stored fields behind them. */
const NOT_MONITORED: ReadonlySet<string> = new Set(['lastChanged', 'photoUrl', 'displayName'])
export const MONITORED_FIELDS = POSTED_FIELDS.filter((f) => !NOT_MONITORED.has(f))

/**
 * How far the signed timestamp may be from now. BambooHR gives no window, but retries a call answered with a
 * 5xx "up to 5 times using exponential backoff (5min, 10min, 20min, 40min, 80min intervals)" and not one
 * answered 4xx (https://documentation.bamboohr.com/reference/employee-updated-webhook, responses). Should a
 * retry carry its first timestamp, the last one is signed 155 minutes before it arrives: the window admits
 * that, plus five minutes for clock skew and BambooHR's queueing (ours). A copy of a stored call within the
 * window is stored once (`callToken`), so the longer window does not let a captured call deliver again.
 */
export const RETRY_SPAN_MS = (5 + 10 + 20 + 40 + 80) * 60_000
export const SIGNATURE_TOLERANCE_MS = RETRY_SPAN_MS + 5 * 60_000

/**
 * `X-BambooHR-Timestamp` as an instant. BambooHR says only "the timestamp when the request was sent"
 * (https://documentation.bamboohr.com/docs/webhooks, "Security"); consumers check it as Unix seconds, and
 * Prismatic's example call carries ISO 8601 (`2026-05-21T14:00:00Z`,
 * prismatic-io/components@8938214f41bc0ec2bdd32d3e6d46495474e42d6d:components/bamboohr/src/examplePayloads.ts),
 * so both are taken; an ISO time must name its offset, or the instant would be a guess.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})$/

export function bamboohrTimestampMs(header: string): number | undefined {
  if (/^\d{1,12}$/.test(header)) return Number(header) * 1000
  if (!ISO_INSTANT.test(header)) return undefined
  // Date.parse takes `+00:00` and `Z`; BambooHR also prints offsets as `+0000` (event-based-webhooks).
  const ms = Date.parse(header.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
  return Number.isNaN(ms) ? undefined : ms
}

/**
 * True when the call carries BambooHR's signature of its exact body and of the timestamp header as sent, and
 * that timestamp is within `SIGNATURE_TOLERANCE_MS` of `nowMs`.
 */
export function bamboohrSignatureValid(call: NativeCall, privateKey: string, nowMs: number): boolean {
  const timestamp = headerOf(call, 'x-bamboohr-timestamp') ?? ''
  const signature = headerOf(call, 'x-bamboohr-signature') ?? ''
  const sentMs = bamboohrTimestampMs(timestamp)
  if (sentMs === undefined || Math.abs(nowMs - sentMs) > SIGNATURE_TOLERANCE_MS) return false
  const expected = createHmac('sha256', privateKey)
    .update(call.rawBody + timestamp)
    .digest('hex')
  return secretsEqual(signature.toLowerCase(), expected)
}

interface FieldBasedCall {
  readonly employees?: readonly {
    readonly id?: string | number
    readonly action?: string
    readonly fields?: Record<string, string | null> | null
  }[]
}

function employeeOf(
  entry: NonNullable<FieldBasedCall['employees']>[number],
  companyId: string,
): UnifiedRecord | undefined {
  if (entry.id === undefined || entry.id === null || String(entry.id) === '') return undefined
  const fields = entry.fields && typeof entry.fields === 'object' ? entry.fields : {}
  if (Object.keys(fields).length === 0) return { id: String(entry.id) }
  const employee: BamboohrEmployee = { ...fields, id: String(entry.id) }
  return fromBamboohrEmployee(employee, companyId)
}

/** The aliases a Webhooks API field list names (`{fields: [{alias, ...}]}`; an alias may be null). */
async function aliasesAt(ctx: HandlerContext, path: string): Promise<ReadonlySet<string>> {
  const answer = await ctx.client.json<{ fields?: readonly { alias?: unknown }[] }>({ path })
  const fields = Array.isArray(answer?.fields) ? answer.fields : []
  return new Set(fields.flatMap((f) => (typeof f?.alias === 'string' ? [f.alias] : [])))
}

/**
 * The fields this key's webhook may monitor and post. A permissioned webhook is "limited by the permissions of
 * the user who created" it (https://documentation.bamboohr.com/docs/webhooks-2), and one naming a field that
 * user may not read, cannot monitor or that the account lacks is refused whole with a 403 (create-webhook in
 * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml). So the mapped fields are
 * cut to those `GET /v1/webhooks/monitor_fields` and `GET /v1/webhooks/post-fields` offer this key
 * (list-monitor-fields, get-post-fields there): a key without, say, compensation access still gets its pushes,
 * without pay, as its reads come without pay. Should nothing mapped be monitorable, the whole list is sent, and
 * BambooHR's own 403 says which fields it refuses.
 */
async function webhookFields(ctx: HandlerContext) {
  const [monitorable, postable] = await Promise.all([
    aliasesAt(ctx, '/webhooks/monitor_fields'),
    aliasesAt(ctx, '/webhooks/post-fields'),
  ])
  const monitored = MONITORED_FIELDS.filter((f) => monitorable.has(f))
  const posted = POSTED_FIELDS.filter((f) => postable.has(f))
  return {
    monitorFields: monitored.length > 0 ? monitored : MONITORED_FIELDS,
    postFields: Object.fromEntries((posted.length > 0 ? posted : POSTED_FIELDS).map((f) => [f, f])),
  }
}

export const bamboohrEmployeePushes: NativeWebhookSupport = {
  events: ['created', 'updated', 'deleted'],

  async subscribe(ctx, request) {
    const created = await ctx.client.json<{ id?: string | number; privateKey?: string }>({
      method: 'POST',
      path: '/webhooks/',
      body: {
        name: request.name,
        url: request.url,
        format: 'json',
        events: [`employee_with_fields.${request.event}`],
        ...(await webhookFields(ctx)),
      },
    })
    if (created.id === undefined || !created.privateKey) {
      throw new TypeError('BambooHR created the webhook without an id or private key')
    }
    // BambooHR signs with the key it issued: Unigate's own secret is not used.
    return { externalId: String(created.id), secret: created.privateKey }
  },

  async unsubscribe(ctx, externalId) {
    try {
      await ctx.client.send({
        method: 'DELETE',
        path: `/webhooks/${encodeURIComponent(externalId)}/`,
        idempotent: true,
      })
    } catch (err) {
      if (!(err instanceof ProviderError && err.status === 404)) throw err
    }
  },

  /**
   * `GET /v1/webhooks/{id}/` answers the webhook's configuration, 404 once it no longer exists (get-webhook in
   * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml); an admin removes one
   * in BambooHR's settings or with delete-webhook.
   */
  async subscriptionState(ctx, externalId) {
    try {
      await ctx.client.json({ method: 'GET', path: `/webhooks/${encodeURIComponent(externalId)}/` })
      return 'present'
    } catch (err) {
      if (err instanceof ProviderError && err.status === 404) return 'gone'
      throw err
    }
  },

  /**
   * `GET /v1/webhooks/` "Returns all webhooks owned by the authenticated user", each a summary `{id, name,
   * created, lastSent, url}`, unpaged (list-webhooks in
   * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml): the key that subscribed
   * sees its own webhooks.
   */
  async subscriptionsAt(ctx, target) {
    const listed = await ctx.client.json<{ webhooks?: readonly { id?: unknown; url?: unknown }[] }>({
      path: '/webhooks/',
    })
    const hooks = Array.isArray(listed?.webhooks) ? listed.webhooks : []
    return hooks.flatMap((h) =>
      sameTarget(h?.url, target.url) &&
      (typeof h.id === 'string' || typeof h.id === 'number') &&
      String(h.id) !== ''
        ? [String(h.id)]
        : [],
    )
  },

  authenticate: bamboohrSignatureValid,

  // The signature covers body and timestamp, so it names the call: remembered as the call's one-time token for as
  // long as a copy of it could still authenticate (its timestamp plus the window).
  callToken(call) {
    const signature = headerOf(call, 'x-bamboohr-signature')?.toLowerCase()
    const sentMs = bamboohrTimestampMs(headerOf(call, 'x-bamboohr-timestamp') ?? '')
    if (!signature || sentMs === undefined) return undefined
    return { token: signature, keepUntilMs: sentMs + SIGNATURE_TOLERANCE_MS }
  },

  records(call, push) {
    const body = (call.body ?? {}) as FieldBasedCall
    if (!Array.isArray(body.employees)) return []
    const entries = body.employees.filter((e) => e?.action === ACTIONS[push.event])
    if (push.event === 'created') {
      const ids = entries.flatMap((e) =>
        e.id === undefined || e.id === null || String(e.id) === '' ? [] : [String(e.id)],
      )
      // BambooHR pushes a creation to every subscriber, whoever may see the employee ("This event does not
      // enforce permission checking", `employee.created` in specs/public.yaml): one the key's user may not see
      // is a 403 to read back, and is left out as the report lists leave it out.
      return { ids, removed: false, forbiddenMeansHidden: true }
    }
    const companyId = companyIdOf(push.credentials)
    return entries.flatMap((e): UnifiedRecord[] => {
      const record = employeeOf(e, companyId)
      return record ? [record] : []
    })
  },
}
