import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requireScope } from '../auth.js'
import { contactJson, listParam } from '../contact-json.js'
import { HubspotHttpError, objectNotFound, validation } from '../errors.js'
import { applyProperties, checkProperties, refuseDuplicateEmail } from '../property-writes.js'
import type { ContactRecord, HubspotState } from '../state.js'

type Query = Record<string, string | string[] | undefined>
const READ = 'crm.objects.contacts.read'
const WRITE = 'crm.objects.contacts.write'

/** The plain list's page size: default 10, at most 100 (https://developers.hubspot.com/docs/api-reference/crm-contacts-v3). */
const DEFAULT_LIMIT = 10
const MAX_LIMIT = 100

/** `after` is opaque: here, as in HubSpot's example (`NTI1Cg==`), the base64 of the next id. */
const cursorOf = (id: string) => Buffer.from(`${id}\n`).toString('base64')
function idOfCursor(after: string): number {
  const id = Number(Buffer.from(after, 'base64').toString('utf8').trim())
  if (!Number.isInteger(id)) throw validation(`Invalid after cursor: ${after}`)
  return id
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[v.length - 1] : v)

/** HubSpot-defined association types a contact can be created with (https://developers.hubspot.com/docs/guides/api/crm/associations/associations-v4). */
const CREATE_ASSOCIATIONS: Readonly<Record<number, 'companies' | 'deals'>> = {
  1: 'companies',
  279: 'companies',
  4: 'deals',
}

function associationsOnCreate(state: HubspotState, input: unknown) {
  const out = { companies: new Set<string>(), deals: new Set<string>() }
  if (input === undefined) return out
  if (!Array.isArray(input)) throw validation('Invalid input JSON: associations must be an array')
  for (const a of input as {
    to?: { id?: unknown }
    types?: { associationCategory?: string; associationTypeId?: number }[]
  }[]) {
    const id = String(a.to?.id ?? '')
    for (const t of a.types ?? []) {
      const kind =
        t.associationCategory === 'HUBSPOT_DEFINED'
          ? CREATE_ASSOCIATIONS[t.associationTypeId ?? -1]
          : undefined
      if (!kind) {
        throw validation(
          `${t.associationCategory} ${t.associationTypeId} is not a valid association type between contacts and the target object`,
        )
      }
      const known = kind === 'companies' ? state.companyIds : state.dealIds
      if (!known.includes(id)) throw validation(`One or more of the target objects (${id}) do not exist`)
      out[kind].add(id)
    }
  }
  return out
}

function contactOf(state: HubspotState, request: FastifyRequest): ContactRecord {
  const id = (request.params as { contactId: string }).contactId
  const c = state.contacts.get(id)
  if (!c || c.archivedAt !== undefined) throw objectNotFound()
  return c
}

export function registerContactRoutes(app: FastifyInstance, state: HubspotState): void {
  /**
   * `GET /crm/v3/objects/contacts`: contacts in id order, `limit` (default 10), `after`, `properties`,
   * `associations`, `archived` (HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json, operation getPage); `paging.next` only while more remain.
   */
  app.get('/crm/v3/objects/contacts', async (request) => {
    requireScope(request, READ)
    const q = request.query as Query
    const limitText = one(q.limit) ?? String(DEFAULT_LIMIT)
    const limit = Number(limitText)
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_LIMIT) {
      throw validation(`limit must be between 1 and ${MAX_LIMIT}, got ${limitText}`)
    }
    const archived = one(q.archived) === 'true'
    const from = q.after !== undefined ? idOfCursor(String(one(q.after))) : 0
    const rows = [...state.contacts.values()]
      .filter((c) => (c.archivedAt !== undefined) === archived && Number(c.id) >= from)
      .sort((a, b) => Number(a.id) - Number(b.id))
    const page = rows.slice(0, limit)
    const next = rows[limit]
    return {
      results: page.map((c) => contactJson(c, listParam(q.properties), listParam(q.associations))),
      ...(next
        ? {
            paging: {
              next: { after: cursorOf(next.id), link: `?after=${encodeURIComponent(cursorOf(next.id))}` },
            },
          }
        : {}),
    }
  })

  app.get('/crm/v3/objects/contacts/:contactId', async (request) => {
    requireScope(request, READ)
    const q = request.query as Query
    return contactJson(contactOf(state, request), listParam(q.properties), listParam(q.associations))
  })

  /** Create: 201 with the contact; `properties` and `associations` (SimplePublicObjectInputForCreate). */
  app.post('/crm/v3/objects/contacts', async (request, reply) => {
    requireScope(request, WRITE)
    const body = (request.body ?? {}) as { properties?: unknown; associations?: unknown }
    const properties = checkProperties(body.properties ?? {})
    refuseDuplicateEmail(state, properties.email)
    const associations = associationsOnCreate(state, body.associations)
    const now = Date.now()
    const c: ContactRecord = {
      id: state.newContactId(),
      properties: {},
      createdAt: now,
      updatedAt: now,
      companies: associations.companies,
      deals: associations.deals,
    }
    applyProperties(c, properties, now)
    state.contacts.set(c.id, c)
    return reply.code(201).send(contactJson(c, Object.keys(properties)))
  })

  /** Update: only the properties sent change; answers the contact with those properties. */
  app.patch('/crm/v3/objects/contacts/:contactId', async (request) => {
    requireScope(request, WRITE)
    const c = contactOf(state, request)
    const body = (request.body ?? {}) as { properties?: unknown }
    if (body.properties === undefined) throw validation('Invalid input JSON: properties is required')
    const properties = checkProperties(body.properties)
    refuseDuplicateEmail(state, properties.email, c)
    applyProperties(c, properties, Date.now())
    return contactJson(c, Object.keys(properties))
  })

  /**
   * Archive: 204; the contact no longer lists or reads (it stays restorable for 90 days: HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json,
   * batch archive). HubSpot's archive is idempotent: an id that does not exist, or is archived already, is
   * also 204, never 404 ("DELETE https://api.hubapi.com/crm/v3/objects/contact/834872398 returns 204 and not
   * 404, even if there is no contact with the id": n8n-io/n8n#3219, comment of 2022-05-31; the spec lists
   * only 204 and `default` for the operation). A 404 here had a connector's "not found" path tested that
   * HubSpot never takes.
   */
  app.delete('/crm/v3/objects/contacts/:contactId', async (request, reply) => {
    requireScope(request, WRITE)
    const c = state.contacts.get((request.params as { contactId: string }).contactId)
    if (c && c.archivedAt === undefined) c.archivedAt = Date.now()
    return reply.code(204).send()
  })

  /** Batch archive: `{inputs: [{id}]}`, at most 100, 204 (HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json; batch limit: https://developers.hubspot.com/docs/guides/api/crm/objects/contacts). */
  app.post('/crm/v3/objects/contacts/batch/archive', async (request, reply) => {
    requireScope(request, WRITE)
    const inputs = ((request.body ?? {}) as { inputs?: { id?: string }[] }).inputs
    if (!Array.isArray(inputs)) throw validation('Invalid input JSON: inputs is required')
    if (inputs.length > 100) throw new HubspotHttpError(400, 'VALIDATION_ERROR', 'Batch input limit is 100')
    const now = Date.now()
    for (const { id } of inputs) {
      const c = state.contacts.get(String(id))
      if (c && c.archivedAt === undefined) c.archivedAt = now
    }
    return reply.code(204).send()
  })
}
