import type { FastifyInstance } from 'fastify'
import { requireScope } from '../auth.js'
import { validation } from '../errors.js'
import type { HubspotState } from '../state.js'

const OBJECT_TYPES: Readonly<Record<string, 'contacts' | 'companies' | 'deals'>> = {
  contacts: 'contacts',
  contact: 'contacts',
  '0-1': 'contacts',
  companies: 'companies',
  company: 'companies',
  '0-2': 'companies',
  deals: 'deals',
  deal: 'deals',
  '0-3': 'deals',
}

/** The opaque `after` of a v4 association page: here the base64 of the offset. */
const cursorOf = (offset: number) => Buffer.from(`v4-${offset}`).toString('base64')
function offsetOf(after: unknown): number {
  const m = /^v4-(\d+)$/.exec(Buffer.from(String(after), 'base64').toString('utf8'))
  if (!m) throw validation(`Invalid after: ${String(after)}`)
  return Number(m[1])
}

/**
 * `POST /crm/v4/associations/{fromObjectType}/{toObjectType}/batch/read`
 * (HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Associations/Rollouts/130902/
 * v4/associations.json, "Retrieve associations"): `{inputs: [{id, after?}]}` to `{status, results: [{from:
 * {id}, to: [{toObjectId, associationTypes}], paging?}]}`; a contact's ids come in pages, `paging.next.after`
 * (only while more remain) asked again beside its id. Ids without associations come back as errors in a
 * 207 (`BatchResponsePublicAssociationMultiWithLabelWithErrors`, `StandardError`). Only contacts to
 * companies and deals are modelled. At most 1,000 inputs
 * (https://developers.hubspot.com/changelog/bug-fix-batch-read-limit-for-hubspot-associations-api).
 * `toObjectId` is a number, `from.id` a string, as HubSpot answers them.
 */
export function registerAssociationRoutes(app: FastifyInstance, state: HubspotState): void {
  app.post('/crm/v4/associations/:from/:to/batch/read', async (request, reply) => {
    requireScope(request, 'crm.objects.contacts.read')
    const { from, to } = request.params as { from: string; to: string }
    const target = OBJECT_TYPES[to]
    if (OBJECT_TYPES[from] !== 'contacts' || (target !== 'companies' && target !== 'deals')) {
      throw validation(`Unsupported association ${from} to ${to} in this emulator`)
    }
    const inputs = ((request.body ?? {}) as { inputs?: { id?: unknown; after?: unknown }[] }).inputs
    if (!Array.isArray(inputs)) throw validation('Invalid input JSON: inputs is required')
    if (inputs.length > 1000) throw validation('Batch input limit is 1000')
    const now = new Date().toISOString()
    const size = state.associationPageSize
    const results = []
    const errors = []
    for (const { id, after } of inputs) {
      const c = state.contacts.get(String(id))
      const ids = c && c.archivedAt === undefined ? [...(target === 'companies' ? c.companies : c.deals)] : []
      if (ids.length === 0) {
        errors.push({
          status: 'error',
          category: 'OBJECT_NOT_FOUND',
          subCategory: 'crm.associations.NO_ASSOCIATIONS_FOUND',
          message: `No ${target === 'companies' ? 'company' : 'deal'} is associated with contact ${String(id)}.`,
          context: {
            fromObjectId: [String(id)],
            fromObjectType: ['contact'],
            toObjectType: [target === 'companies' ? 'company' : 'deal'],
          },
        })
        continue
      }
      const start = after === undefined ? 0 : offsetOf(after)
      const page = ids.slice(start, start + size)
      results.push({
        from: { id: String(id) },
        to: page.map((toId) => ({
          toObjectId: Number(toId),
          associationTypes:
            target === 'deals'
              ? [{ category: 'HUBSPOT_DEFINED', typeId: 4, label: null }]
              : [
                  // The first company is the primary one: labelled (1) and unlabelled (279).
                  ...(toId === ids[0] ? [{ category: 'HUBSPOT_DEFINED', typeId: 1, label: 'Primary' }] : []),
                  { category: 'HUBSPOT_DEFINED', typeId: 279, label: null },
                ],
        })),
        ...(start + size < ids.length ? { paging: { next: { after: cursorOf(start + size) } } } : {}),
      })
    }
    const body = {
      status: 'COMPLETE',
      results,
      startedAt: now,
      completedAt: now,
      ...(errors.length > 0 ? { numErrors: errors.length, errors } : {}),
    }
    return reply.code(errors.length > 0 ? 207 : 200).send(body)
  })
}
