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

/**
 * `POST /crm/v4/associations/{fromObjectType}/{toObjectType}/batch/read`
 * (HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Associations/Rollouts/130902/v4/associations.json): `{inputs: [{id}]}` to `{status, results: [{from: {id}, to: [{toObjectId,
 * associationTypes}]}]}`; ids without associations come back as errors in a 207 (multi-status). Only
 * contacts to companies and deals are modelled. At most 1,000 inputs (https://developers.hubspot.com/docs/guides/api/crm/associations/associations-v4, "Limits").
 */
export function registerAssociationRoutes(app: FastifyInstance, state: HubspotState): void {
  app.post('/crm/v4/associations/:from/:to/batch/read', async (request, reply) => {
    requireScope(request, 'crm.objects.contacts.read')
    const { from, to } = request.params as { from: string; to: string }
    const target = OBJECT_TYPES[to]
    if (OBJECT_TYPES[from] !== 'contacts' || (target !== 'companies' && target !== 'deals')) {
      throw validation(`Unsupported association ${from} to ${to} in this emulator`)
    }
    const inputs = ((request.body ?? {}) as { inputs?: { id?: unknown }[] }).inputs
    if (!Array.isArray(inputs)) throw validation('Invalid input JSON: inputs is required')
    if (inputs.length > 1000) throw validation('Batch input limit is 1000')
    const now = new Date().toISOString()
    const results = []
    const errors = []
    for (const { id } of inputs) {
      const c = state.contacts.get(String(id))
      const ids = c && c.archivedAt === undefined ? [...(target === 'companies' ? c.companies : c.deals)] : []
      if (ids.length === 0) {
        errors.push({
          status: 'error',
          category: 'OBJECT_NOT_FOUND',
          subCategory: 'crm.associations.NO_ASSOCIATIONS_FOUND',
          message: `No ${target === 'companies' ? 'company' : 'deal'} is associated with contact ${String(id)}.`,
          context: { fromObjectId: [String(id)] },
        })
        continue
      }
      results.push({
        from: { id: String(id) },
        to: ids.map((toId) => ({
          toObjectId: Number(toId),
          associationTypes: [
            {
              category: 'HUBSPOT_DEFINED',
              typeId: target === 'companies' ? 279 : 4,
              label: null,
            },
          ],
        })),
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
