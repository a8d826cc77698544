import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalid, personNotFound } from '../errors.js'
import { webhookPerson } from '../hooks.js'
import type { Channel, PersonRecord, PipedriveState } from '../state.js'

type Query = Record<string, string | undefined>

/** RFC 3339 without fractions, as v2 answers times (https://pipedrive.readme.io/docs/pipedrive-api-v2-migration-guide, "General API Changes"). */
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')

/** A v2 person (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77: src/versions/v2 persons). */
export function personJson(p: PersonRecord, contactSync: boolean): Record<string, unknown> {
  // A name given as `name` is split "with the same logic as in v1 API" (pipedrive-api-v2-migration-guide,
  // "POST /api/v1/persons to POST /api/v2/persons"), which Pipedrive does not describe: here at the first
  // space (ours). Halves given as `first_name` and `last_name` are kept as they came.
  const space = p.name.indexOf(' ')
  const halves =
    p.firstName !== undefined || p.lastName !== undefined
      ? { first: p.firstName || null, last: p.lastName || null }
      : {
          first: space < 0 ? p.name : p.name.slice(0, space),
          last: space < 0 ? null : p.name.slice(space + 1),
        }
  // "Fields `ims`, `postal_address`, `notes`, `birthday`, and `job_title` are only included if contact sync
  // is enabled for the company" (client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77:
  // src/versions/v2/api/persons-api.ts, getPerson and getPersons).
  const synced = contactSync ? { job_title: p.jobTitle ?? null, postal_address: p.postalAddress ?? null } : {}
  return {
    id: p.id,
    name: p.name,
    first_name: halves.first,
    last_name: halves.last,
    owner_id: p.ownerId,
    org_id: p.orgId,
    add_time: rfc3339(p.addTime),
    update_time: rfc3339(p.updateTime),
    emails: p.emails,
    phones: p.phones,
    is_deleted: p.deletedAt !== undefined,
    visible_to: 3,
    label_ids: [],
    picture_id: null,
    custom_fields: p.customFields,
    ...synced,
  }
}

/** Numbers must be numbers: v2 no longer coerces strings (https://pipedrive.readme.io/docs/pipedrive-api-v2-migration-guide). In a query, digits only. */
function queryId(q: Query, name: string): number | undefined {
  const v = q[name]
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw invalid(`Parameter '${name}' must be an integer`)
  return Number(v)
}

function time(q: Query, name: string): number | undefined {
  const v = q[name]
  if (v === undefined) return undefined
  // RFC 3339 with a zone designator, e.g. 2025-01-01T10:20:00Z (getPersons `updated_since`).
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v)
    ? Date.parse(v)
    : Number.NaN
  if (Number.isNaN(ms)) throw invalid(`Parameter '${name}' must be a date-time in RFC 3339 format`)
  return ms
}

/** Persons found at most by a search narrowed by organization (searchPersons `organization_id`). */
const ORG_SEARCH_CAP = 2000

const SORT_FIELDS = ['id', 'update_time', 'add_time'] as const
type SortField = (typeof SORT_FIELDS)[number]
const sortValue = (p: PersonRecord, field: SortField) =>
  field === 'id' ? p.id : field === 'update_time' ? p.updateTime : p.addTime

/** The cursor is opaque: here base64 of the last item's sort key, in the shape Pipedrive's cursors decode to. */
interface Cursor {
  field: SortField
  fieldValue: number
  sortDirection: 'asc' | 'desc'
  id: number
}
const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url')
function decodeCursor(text: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor
    if (typeof c.id === 'number' && typeof c.fieldValue === 'number') return c
  } catch {
    // fall through
  }
  throw invalid('Invalid cursor')
}

/**
 * Emails and phones as objects, `value` required, `label` "optional and will default to `work`", "`primary` is
 * optional and at most only 1 value for each field type can be marked as `primary`. If none are marked as
 * primary, the first value is marked as primary" (pipedrive-api-v2-migration-guide, "POST /api/v1/persons to
 * POST /api/v2/persons"). A second primary is refused here (the guide names no answer for it: ours).
 */
function checkChannels(name: string, value: unknown): Channel[] {
  if (!Array.isArray(value)) throw invalid(`'${name}' must be an array`)
  const channels = value.map((c, i) => {
    const item = c as { value?: unknown; primary?: unknown; label?: unknown }
    if (typeof item.value !== 'string') throw invalid(`'${name}[${i}].value' must be a string`)
    if (item.primary !== undefined && typeof item.primary !== 'boolean') {
      throw invalid(`'${name}[${i}].primary' must be a boolean`)
    }
    return {
      value: item.value,
      primary: item.primary === true,
      label: typeof item.label === 'string' ? item.label : 'work',
    }
  })
  const primaries = channels.filter((c) => c.primary).length
  if (primaries > 1) throw invalid(`Only one of '${name}' can be marked as primary`)
  if (primaries === 0 && channels[0]) channels[0].primary = true
  return channels
}

/**
 * The name of a write: `name`, or both `first_name` and `last_name` ("Either `name` or both `first_name` and
 * `last_name` must be provided ... If `first_name` and `last_name` are provided, `name` is created by
 * concatenating these. Empty strings are accepted for `first_name` and `last_name`, but both can not be empty
 * strings at the same time", the same for PATCH "when updating the person's name":
 * https://pipedrive.readme.io/docs/pipedrive-api-v2-migration-guide, "POST /api/v1/persons to POST
 * /api/v2/persons" and "PUT /api/v1/persons/:id to PATCH /api/v2/persons/:id"; read in the copy at
 * fav83/whatsapp2pipe@aa6f18b3c4460d2248c1e9132dcd833d19a8299b, Docs/External/Pipedrive/docs/pipedrive-api-v2-migration-guide.md).
 * One half alone is refused. `name` beside the halves is taken when it is the halves joined (the name the
 * guide says Pipedrive makes of them), refused when it says something else; Pipedrive does not say how it
 * settles either (ours).
 */
function applyName(p: PersonRecord, body: Record<string, unknown>): void {
  const first = body.first_name
  const last = body.last_name
  if (first === undefined && last === undefined) {
    if (body.name === undefined) return
    if (typeof body.name !== 'string' || body.name.trim() === '')
      throw invalid("'name' must be a non-empty string")
    p.name = body.name.trim()
    p.firstName = undefined
    p.lastName = undefined
    return
  }
  if (first === undefined || last === undefined)
    throw invalid("Both 'first_name' and 'last_name' must be provided")
  if (typeof first !== 'string' || typeof last !== 'string')
    throw invalid("'first_name' and 'last_name' must be strings")
  if (first.trim() === '' && last.trim() === '')
    throw invalid("'first_name' and 'last_name' can not both be empty")
  const joined = [first.trim(), last.trim()].filter((half) => half !== '').join(' ')
  if (body.name !== undefined && (typeof body.name !== 'string' || body.name.trim() !== joined))
    throw invalid("Provide either 'name' or 'first_name' and 'last_name', or a 'name' that is them joined")
  p.firstName = first.trim()
  p.lastName = last.trim()
  p.name = joined
}

/** Checks a person body (`AddPersonRequest`): ids as numbers of existing records, channels as objects. */
function applyBody(state: PipedriveState, p: PersonRecord, body: Record<string, unknown>): void {
  applyName(p, body)
  if (body.owner_id !== undefined) {
    if (typeof body.owner_id !== 'number') throw invalid("'owner_id' must be an integer")
    if (!state.userIds.includes(body.owner_id)) throw invalid(`User with id ${body.owner_id} not found`)
    p.ownerId = body.owner_id
  }
  if (body.org_id !== undefined) {
    if (body.org_id !== null && typeof body.org_id !== 'number') throw invalid("'org_id' must be an integer")
    if (body.org_id !== null && !state.orgIds.includes(body.org_id))
      throw invalid(`Organization with id ${body.org_id} not found`)
    p.orgId = body.org_id
  }
  if (body.emails !== undefined) p.emails = checkChannels('emails', body.emails)
  if (body.phones !== undefined) p.phones = checkChannels('phones', body.phones)
  if (body.custom_fields !== undefined) {
    if (!body.custom_fields || typeof body.custom_fields !== 'object')
      throw invalid("'custom_fields' must be an object")
    for (const [key, value] of Object.entries(body.custom_fields as Record<string, unknown>)) {
      // Custom fields are named by their 40-character key.
      if (!/^[0-9a-f]{40}$/.test(key)) throw invalid(`Custom field '${key}' does not exist`)
      if (value === null) delete p.customFields[key]
      else p.customFields[key] = value
    }
  }
}

/** The fields whose values differ, with their earlier values: webhooks v2's `previous` on a change. */
function changedFrom(before: Record<string, unknown>, after: Record<string, unknown>) {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(before)) {
    if (JSON.stringify(value) !== JSON.stringify(after[key])) out[key] = value
  }
  return out
}

/**
 * Tells the company's webhooks of a person's change, made by the token's user through the API
 * (guide-for-webhooks-v2, "Data and previous": create has `previous` null, delete has `data` null and the
 * last state in `previous`, change has the changed fields' earlier values).
 */
function notifyHooks(
  state: PipedriveState,
  action: 'create' | 'change' | 'delete',
  p: PersonRecord,
  before?: Record<string, unknown>,
): void {
  const now = webhookPerson(personJson(p, state.options.contactSync))
  const last = before ? webhookPerson(before) : now
  state.hooks.notify({
    action,
    personId: p.id,
    data: action === 'delete' ? null : now,
    previous: action === 'create' ? null : action === 'delete' ? last : changedFrom(last, now),
    userId: state.userIds[0] as number,
    permittedUserIds: [p.ownerId],
  })
}

function personOf(state: PipedriveState, request: FastifyRequest): PersonRecord {
  const id = Number((request.params as { id: string }).id)
  const p = Number.isInteger(id) ? state.readable(id) : undefined
  if (!p) throw personNotFound()
  return p
}

export function registerPersonRoutes(app: FastifyInstance, state: PipedriveState): void {
  /**
   * `GET /api/v2/persons`: `limit` default 100, at most 500; `cursor`; filters `owner_id`, `org_id`,
   * `deal_id`, `ids`, `updated_since` (inclusive), `updated_until` (exclusive); `sort_by` id, update_time or
   * add_time; `sort_direction` asc or desc; `additional_data.next_cursor` null at the end (getPersons).
   */
  app.get('/api/v2/persons', async (request) => {
    const q = request.query as Query
    const limitText = q.limit ?? '100'
    const limit = Number(limitText)
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > 500)
      throw invalid("Parameter 'limit' must be between 1 and 500")
    const sortBy = (q.sort_by ?? 'id') as SortField
    if (!SORT_FIELDS.includes(sortBy))
      throw invalid(`Parameter 'sort_by' must be one of ${SORT_FIELDS.join(', ')}`)
    const direction = q.sort_direction ?? 'asc'
    if (direction !== 'asc' && direction !== 'desc')
      throw invalid("Parameter 'sort_direction' must be asc or desc")
    const owner = queryId(q, 'owner_id')
    const org = queryId(q, 'org_id')
    const deal = queryId(q, 'deal_id')
    const since = time(q, 'updated_since')
    const until = time(q, 'updated_until')
    // `ids`: "up to 100 entity ids" (getPersons in client-nodejs v2 persons-api.ts).
    const ids = q.ids?.split(',').map((s) => Number(s))
    if (ids && (ids.length > 100 || ids.some((n) => !Number.isInteger(n)))) {
      throw invalid("Parameter 'ids' must be at most 100 integers")
    }
    const dealPersons = deal === undefined ? undefined : (state.dealPersons.get(deal) ?? new Set<number>())
    const sign = direction === 'asc' ? 1 : -1
    let rows = state
      .livePersons()
      .filter((p) => owner === undefined || p.ownerId === owner)
      .filter((p) => org === undefined || p.orgId === org)
      .filter((p) => dealPersons === undefined || dealPersons.has(p.id))
      .filter((p) => since === undefined || p.updateTime >= since)
      .filter((p) => until === undefined || p.updateTime < until)
      .filter((p) => ids === undefined || ids.includes(p.id))
      .sort((a, b) => sign * (sortValue(a, sortBy) - sortValue(b, sortBy) || a.id - b.id))
    if (q.cursor !== undefined) {
      const c = decodeCursor(q.cursor)
      // Ours: Pipedrive documents the cursor only as "an opaque string value" (getPersons `cursor`), not what
      // a cursor answers under another sort; refusing it keeps a connector from relying on either.
      if (c.field !== sortBy || c.sortDirection !== direction) throw invalid('Cursor does not match the sort')
      rows = rows.filter((p) => sign * (sortValue(p, sortBy) - c.fieldValue || p.id - c.id) > 0)
    }
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    const more = rows.length > limit && last !== undefined
    return {
      success: true,
      data: page.map((p) => personJson(p, state.options.contactSync)),
      additional_data: {
        next_cursor: more
          ? encodeCursor({
              field: sortBy,
              fieldValue: sortValue(last, sortBy),
              sortDirection: direction,
              id: last.id,
            })
          : null,
      },
    }
  })

  /**
   * `GET /api/v2/persons/search`: `term` of at least 2 characters (1 with `exact_match`), matched in name,
   * email, phone, notes and custom fields (`fields` narrows them), `organization_id`, `limit` up to 500 and
   * `cursor`; items `{result_score, item: {id, type, name, emails, phones, owner, organization, ...}}`
   * (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77: src/versions/v2/api/persons-api.ts
   * searchPersons, src/versions/v2/models/get-person-search-response-all-of-data-items-inner-item.ts).
   * Scores here: 1 for a name match, 0.5 otherwise; ties in id order.
   */
  app.get('/api/v2/persons/search', async (request) => {
    const q = request.query as Query
    const exact = q.exact_match === 'true'
    const term = (q.term ?? '').trim()
    if (term.length < (exact ? 1 : 2)) throw invalid("Parameter 'term' must be at least 2 characters long")
    const limitText = q.limit ?? '100'
    const limit = Number(limitText)
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > 500)
      throw invalid("Parameter 'limit' must be between 1 and 500")
    const org = queryId(q, 'organization_id')
    const fields = (q.fields ?? 'custom_fields,email,notes,phone,name').split(',')
    const wanted = term.toLowerCase()
    const hit = (value: string) =>
      exact ? value.toLowerCase() === wanted : value.toLowerCase().includes(wanted)
    const scored = state
      .livePersons()
      .filter((p) => org === undefined || p.orgId === org)
      .map((p) => {
        const byName = fields.includes('name') && hit(p.name)
        const other =
          (fields.includes('email') && p.emails.some((e) => hit(e.value))) ||
          (fields.includes('phone') && p.phones.some((e) => hit(e.value))) ||
          (fields.includes('custom_fields') &&
            Object.values(p.customFields).some((v) => typeof v === 'string' && hit(v)))
        return { p, score: byName ? 1 : other ? 0.5 : 0 }
      })
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score || a.p.id - b.p.id)
      // With `organization_id`, at most 2000 persons are found: "The upper limit of found persons associated
      // with the organization is 2000" (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77:
      // src/versions/v2/api/persons-api.ts, searchPersons). Which 2000 is not documented: the best scored here.
      .slice(0, org === undefined ? undefined : ORG_SEARCH_CAP)
    const offset = q.cursor === undefined ? 0 : Number(Buffer.from(q.cursor, 'base64url').toString('utf8'))
    if (!Number.isInteger(offset) || offset < 0) throw invalid('Invalid cursor')
    const page = scored.slice(offset, offset + limit)
    const next =
      offset + limit < scored.length ? Buffer.from(String(offset + limit)).toString('base64url') : null
    return {
      success: true,
      data: {
        items: page.map(({ p, score }) => ({
          result_score: score,
          item: {
            id: p.id,
            type: 'person',
            name: p.name,
            phones: p.phones.map((x) => x.value),
            emails: p.emails.map((x) => x.value),
            visible_to: 3,
            owner: { id: p.ownerId },
            organization: p.orgId === null ? null : { id: p.orgId },
            custom_fields: [],
            notes: [],
          },
        })),
      },
      additional_data: { next_cursor: next },
    }
  })

  app.get('/api/v2/persons/:id', async (request) => ({
    success: true,
    data: personJson(personOf(state, request), state.options.contactSync),
  }))

  /** Add a person: `name`, or both `first_name` and `last_name`, is required (see applyName). */
  app.post('/api/v2/persons', async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    if (body.name === undefined && body.first_name === undefined && body.last_name === undefined)
      throw invalid("'name' is required (or both 'first_name' and 'last_name')")
    const now = Math.floor(Date.now() / 1000) * 1000
    const p: PersonRecord = {
      id: state.newPersonId(),
      name: '',
      ownerId: state.userIds[0] as number,
      orgId: null,
      emails: [],
      phones: [],
      customFields: {},
      addTime: now,
      updateTime: now,
    }
    applyBody(state, p, body)
    state.persons.set(p.id, p)
    notifyHooks(state, 'create', p)
    return { success: true, data: personJson(p, state.options.contactSync) }
  })

  /** Update a person: PATCH, only the fields sent change (v2 replaced v1's PUT). */
  app.patch('/api/v2/persons/:id', async (request) => {
    const p = personOf(state, request)
    if (p.deletedAt !== undefined) throw personNotFound()
    const before = personJson(p, state.options.contactSync)
    applyBody(state, p, (request.body ?? {}) as Record<string, unknown>)
    p.updateTime = Math.floor(Date.now() / 1000) * 1000
    notifyHooks(state, 'change', p, before)
    return { success: true, data: personJson(p, state.options.contactSync) }
  })

  /** Delete: marked deleted, gone after 30 days; answers the id. Deleting a deleted person is 404 here. */
  app.delete('/api/v2/persons/:id', async (request) => {
    const p = personOf(state, request)
    if (p.deletedAt !== undefined) throw personNotFound()
    const before = personJson(p, state.options.contactSync)
    p.deletedAt = Date.now()
    p.updateTime = Math.floor(p.deletedAt / 1000) * 1000
    notifyHooks(state, 'delete', p, before)
    return { success: true, data: { id: p.id } }
  })

  /** `GET /api/v1/users/me`: the token's user, with its company (Users API v1). */
  app.get('/api/v1/users/me', async () => ({
    success: true,
    data: {
      id: state.userIds[0],
      name: 'Emulated User',
      email: 'owner@example.com',
      company_id: state.companyId,
      company_name: 'Emulated Company',
      company_domain: state.companyDomain,
      timezone_name: 'Europe/Tallinn',
      locale: 'en_US',
    },
  }))
}
