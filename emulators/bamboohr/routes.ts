import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { GATEWAY } from './auth.js'
import { MAX_FIELDS, REPORT_ACCEPTS, REPORT_FORMATS } from './constants.js'
import { BamboohrHttpError } from './errors.js'
import type { BamboohrState, EmployeeRecord } from './state.js'

type Query = Record<string, string | undefined>

/** A `lastChanged` filter value in the one form BambooHR documents: seconds and a `+0000`/`+00:00` offset. */
const LAST_CHANGED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:?\d{2}$/

/**
 * JSON only when asked: these endpoints "can produce either JSON or XML" and choose by the Accept header
 * (specs/public.yaml, AcceptHeaderParameter; meta/lists also takes `format=json`). Without it, XML, which
 * the emulator writes as a minimal document: enough for a client that forgot the header to fail as it would.
 */
function answer(request: FastifyRequest, reply: FastifyReply, body: unknown, root: string) {
  const accept = String(request.headers.accept ?? '')
  const format = String((request.query as Query).format ?? '').toLowerCase()
  if (accept.includes('application/json') || format === 'json')
    return reply.type('application/json').send(body)
  return reply.type('text/xml; charset=utf-8').send(`<?xml version="1.0"?>\n<${root}></${root}>`)
}

/** The asked fields an employee has, `id` first; unknown or restricted names are left out, not refused. */
function employeeRow(
  e: EmployeeRecord,
  fields: readonly string[],
  restricted: ReadonlySet<string>,
): Record<string, string | null> {
  const row: Record<string, string | null> = { id: String(e.id) }
  for (const f of fields) if (f in e.fields && !restricted.has(f)) row[f] = e.fields[f] as string | null
  return row
}

function checkFieldCount(fields: readonly string[]): void {
  if (fields.length > MAX_FIELDS) {
    // "The request exceeded the maximum number of allowed fields (400)" (specs/public.yaml, get-employee).
    throw new BamboohrHttpError(400, `A maximum of ${MAX_FIELDS} fields may be requested`)
  }
}

export function registerRoutes(app: FastifyInstance, state: BamboohrState): void {
  // Bodies of other types reach the report route as text, where BambooHR reads them as XML.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body))

  /** `GET /v1/company_information` (specs/public.yaml, get-company-information). */
  app.get(`${GATEWAY}/company_information`, async (request, reply) =>
    answer(request, reply, state.company, 'company'),
  )

  /**
   * `GET /v1/meta/lists`: every list field with all its options, archived ones included and marked
   * `archived: yes` (specs/public.yaml, list-list-fields and ListFieldOption).
   */
  app.get(`${GATEWAY}/meta/lists`, async (request, reply) => answer(request, reply, state.lists, 'lists'))

  /**
   * `GET /v1/employees/{id}?fields=a,b`: `id` plus the asked fields, `firstName,lastName` by default; `0` is
   * the key's own employee; an unknown id is 404 (specs/public.yaml, get-employee).
   */
  app.get(`${GATEWAY}/employees/:id`, async (request, reply) => {
    const { id } = request.params as { id: string }
    const q = request.query as Query
    const fields = (q.fields ?? 'firstName,lastName')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean)
    checkFieldCount(fields)
    const wanted = id === '0' ? state.keyEmployeeId() : /^\d+$/.test(id) ? Number(id) : Number.NaN
    const employee = state.employees.get(wanted)
    if (!employee) throw new BamboohrHttpError(404, 'Employee not found')
    // "The API user does not have permission to see the requested employee" (get-employee, 403; the message
    // in the header is ours): see BamboohrState.hideEmployee.
    if (!state.canSee(employee.id)) throw new BamboohrHttpError(403, 'Permission denied to view employee')
    return answer(request, reply, employeeRow(employee, fields, state.restricted), 'employee')
  })

  /**
   * `POST /v1/reports/custom`: an ad-hoc report of every employee, active and inactive, one row per employee
   * with `id` and the asked fields; unknown fields are left out with a 200 (specs/public.yaml,
   * request-custom-report).
   */
  app.post(`${GATEWAY}/reports/custom`, async (request, reply) => {
    const q = request.query as Query
    // `format` is case-insensitive; without it the exact Accept value decides; anything else is 404.
    const format =
      q.format !== undefined ? q.format.toLowerCase() : REPORT_ACCEPTS[String(request.headers.accept)]
    if (!format || !(REPORT_FORMATS as readonly string[]).includes(format)) {
      throw new BamboohrHttpError(404, 'Report format not found')
    }
    // JSON only with `Content-Type: application/json` exactly; any other type is parsed as XML.
    if (request.headers['content-type'] !== 'application/json' || typeof request.body !== 'object') {
      throw new BamboohrHttpError(400, 'Malformed XML')
    }
    const body = (request.body ?? {}) as {
      title?: unknown
      fields?: unknown
      filters?: { lastChanged?: { value?: unknown; includeNull?: unknown } }
    }
    if (!Array.isArray(body.fields) || body.fields.some((f) => typeof f !== 'string')) {
      throw new BamboohrHttpError(400, 'fields must be an array of field ids')
    }
    const fields = body.fields as string[]
    checkFieldCount(fields)
    const changed = body.filters?.lastChanged
    let since: number | undefined
    if (changed !== undefined) {
      // "ISO 8601 date-time string (offset format `+0000` or `+00:00`)" (request-custom-report,
      // BambooHR/bhr-api-php@a6a10ca26972470d31d494b9caaf7e5db9eaf945:specs/public.yaml): a value in
      // another form (`Z`, fractions of a second, no offset) is refused as a bad request, the 400 that
      // operation documents for a request it cannot read (the message is ours).
      const value = typeof changed.value === 'string' ? changed.value : ''
      since = LAST_CHANGED.test(value)
        ? Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
        : Number.NaN
      if (Number.isNaN(since)) {
        throw new BamboohrHttpError(
          400,
          'lastChanged must be an ISO 8601 date-time with an offset such as +0000 or +00:00 (2025-01-01T00:00:00+0000)',
        )
      }
    }
    // `includeNull` defaults to `yes`: employees never changed stay in a lastChanged report unless `no`.
    const includeNull = changed?.includeNull !== 'no'
    // Only the employees the key's user may see (BamboohrState.hideEmployee).
    const employees = [...state.employees.values()].filter((e) => {
      if (!state.canSee(e.id)) return false
      if (since === undefined) return true
      const last = e.fields.lastChanged
      return last === null || last === undefined ? includeNull : Date.parse(last) >= (since as number)
    })
    if (format !== 'json') {
      return reply.type('text/xml; charset=utf-8').send('<?xml version="1.0"?>\n<report></report>')
    }
    const known = fields.filter((f) => employees.some((e) => f in e.fields) && !state.restricted.has(f))
    return reply.type('application/json').send({
      title: typeof body.title === 'string' ? body.title : '',
      fields: known.map((id) => ({ id, type: 'text', name: id })),
      employees: employees.map((e) => employeeRow(e, known, state.restricted)),
    })
  })

  /** `GET /v1/benefit/company_benefit`: every active (non-deleted) plan (specs/public.yaml, list-company-benefits). */
  app.get(`${GATEWAY}/benefit/company_benefit`, async (request, reply) =>
    answer(request, reply, { companyBenefits: state.benefits }, 'companyBenefits'),
  )
}
