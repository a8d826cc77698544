import { ApiError, badRequest, notFound, ProviderError } from '../../errors.js'
import { joinNames, rawListParam } from '../raw-lists.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { companyIdOf } from './company.js'
import { optionName, readListFields } from './lists.js'
import { EMPLOYEE_FIELDS, fromBamboohrEmployee, optionIdsOf, parseBamboohrTimestamp } from './mappers.js'
import { bamboohrEmployeePushes } from './native-webhooks.js'
import type { BamboohrEmployee, BamboohrListField, BamboohrReport } from './types.js'

/** The provider fields a request reads: the mapped ones plus any `raw.<name>` the caller named. */
/**
 * The fields to ask BambooHR for: the unified ones, the `raw.<name>` ones, and a raw `fields` list, which
 * adds to them (rawListParam); the other raw parameters go to the query string.
 */
function askOf(ctx: HandlerContext) {
  const raw = rawListParam(ctx.rawParams, 'fields')
  return { fields: joinNames([...EMPLOYEE_FIELDS, ...ctx.fields.rawNames], raw.names), query: raw.rest }
}

/**
 * Every employee, active and inactive, from one custom report (`POST /v1/reports/custom`): the one list an API
 * key may read that includes inactive employees (the directory has active ones only, and `GET /v1/employees`
 * takes OAuth only). The report has no paging, so it answers everyone at once; it is ordered by id here so
 * offsets are stable. `lastChanged` filters at BambooHR; employees never changed are left out then.
 */
/**
 * A `lastChanged` filter value as BambooHR documents it: "ISO 8601 date-time string (offset format `+0000`
 * or `+00:00`)" (request-custom-report,
 * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml), so whole seconds and
 * `+00:00`, never `Z` or milliseconds. The second is rounded down; the report is then cut to the exact instant.
 */
export const lastChangedValue = (at: Date) => `${at.toISOString().slice(0, 19)}+00:00`

async function runReport(ctx: HandlerContext, updatedGte?: Date): Promise<BamboohrEmployee[]> {
  const ask = askOf(ctx)
  const report = await ctx.client.json<BamboohrReport>({
    method: 'POST',
    path: '/reports/custom',
    // A report takes its fields in the body (request-custom-report, specs/public.yaml): raw ones join them there.
    query: { ...ask.query, format: 'JSON' },
    body: {
      title: 'Unigate employees',
      fields: ask.fields,
      ...(updatedGte
        ? { filters: { lastChanged: { includeNull: 'no', value: lastChangedValue(updatedGte) } } }
        : {}),
    },
    // A report only reads.
    idempotent: true,
  })
  if (!Array.isArray(report.employees)) throw new TypeError('the custom report has no employees list')
  // The filter was sent to the whole second: leave out a change earlier than `updated_gte` within it.
  const since = updatedGte?.getTime()
  const kept =
    since === undefined
      ? report.employees
      : report.employees.filter((e) => (parseBamboohrTimestamp(e.lastChanged)?.getTime() ?? -1) >= since)
  return [...kept].sort((a, b) => Number(a.id) - Number(b.id) || String(a.id).localeCompare(b.id))
}

/** Reports print a department, division or location by name: a filter by id is matched through its name. */
function byOption(lists: readonly BamboohrListField[], filter: 'group_id' | 'location_id', id: string) {
  const option = optionName(lists, filter, id)
  if (!option) {
    throw badRequest(
      `${filter}: '${id}' is not a BambooHR ${filter === 'group_id' ? 'group' : 'location'} of this connection; ` +
        `list /${filter === 'group_id' ? 'group' : 'location'} for the ids`,
    )
  }
  return (e: BamboohrEmployee) => e[option.alias] === option.name
}

/**
 * An employee the key's user may not see is a 403 to read ("The API user does not have permission to see the
 * requested employee", get-employee in
 * BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml): the user's access level
 * leaves them out, and the report lists leave them out too. It says nothing about the key as a whole, so it is
 * a 403 naming the employee and what to change, never a 500 and never a reason to re-authorize.
 */
async function hiddenAware<T>(id: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (err) {
    if (!(err instanceof ProviderError && err.status === 403)) throw err
    throw new ApiError(
      403,
      `get hris_employee ${id}: BambooHR answered 403: ${err.providerMessage}. The API key's user may not see this ` +
        "employee (its BambooHR access level leaves them out, and lists leave them out too); give that user's " +
        'access level all employees, or connect with the key of a user who has it',
      {},
      { provider_status: 403 },
    )
  }
}

/**
 * The department, division and location options, read without the caller's raw parameters, which are for
 * the report (or the employee read) that reads the employees.
 */
const optionLists = (ctx: HandlerContext) => readListFields({ ...ctx, rawParams: {} })

/** Whether the response shows an employee's groups or locations, whose ids the list options give. */
const showsOptions = (ctx: HandlerContext) =>
  !ctx.fields.listed || ctx.fields.listed.has('groups') || ctx.fields.listed.has('locations')

export const employeeHandlers: ObjectHandlers = {
  listIsComplete: true,
  nativeWebhooks: bamboohrEmployeePushes,
  listParams: ['updated_gte'],
  filters: ['group_id', 'location_id'],
  rawOwned: { format: 'Unigate reads the report as JSON' },
  async list(ctx, q) {
    const filters = (['group_id', 'location_id'] as const).filter((f) => typeof q.filters[f] === 'string')
    const lists = filters.length > 0 || showsOptions(ctx) ? await optionLists(ctx) : []
    const checks = filters.map((f) => byOption(lists, f, q.filters[f] as string))
    const rows = (await runReport(ctx, q.updated_gte)).filter((e) => checks.every((ok) => ok(e)))
    const company = companyIdOf(ctx.credentials)
    const ids = optionIdsOf(lists)
    return rows.slice(q.offset, q.offset + q.limit).map((e) => fromBamboohrEmployee(e, company, ids))
  },
  async get(ctx, id) {
    // BambooHR ids are whole numbers from 1. It reads `0` as the API key's own employee and `0100` as 100:
    // either would answer a record whose id is not the one asked, where every other id that names no
    // employee is a 404.
    if (!/^[1-9]\d*$/.test(id))
      throw notFound(`get hris_employee ${id}: not found at BambooHR (ids are whole numbers from 1)`)
    const ask = askOf(ctx)
    const [employee, lists] = await Promise.all([
      hiddenAware(id, () =>
        ctx.client.json<BamboohrEmployee>({
          path: `/employees/${encodeURIComponent(id)}`,
          query: { ...ask.query, fields: ask.fields.join(',') },
        }),
      ),
      showsOptions(ctx) ? optionLists(ctx) : [],
    ])
    return fromBamboohrEmployee(employee, companyIdOf(ctx.credentials), optionIdsOf(lists))
  },
}
