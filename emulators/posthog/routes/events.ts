import type { FastifyInstance } from 'fastify'
import { isoMicrosOffset, isUuid } from '../../kit/index.js'
import { drfError, notFound, PosthogHttpError } from '../errors.js'
import type { PosthogState } from '../state.js'
import { sortedDistinctIds } from '../store/persons.js'
import { PROJECT_SCOPED_PREFIXES, type ProjectParams, projectOf } from './scope.js'

interface EventParams extends ProjectParams {
  readonly eventId: string
}

/**
 * `GET /api/projects/{pid}/events/{uuid}/`: one event in the legacy events API's shape
 * (PostHog/posthog@master:posthog/api/event.py `EventViewSet.retrieve`).
 */
export function registerEventRoutes(app: FastifyInstance, state: PosthogState): void {
  for (const prefix of PROJECT_SCOPED_PREFIXES) {
    app.get<{ Params: EventParams }>(`${prefix}/events/:eventId`, async (request) => {
      const data = projectOf(state, request.params.projectId, request.url)
      const id = request.params.eventId
      if (!isUuid(id))
        throw new PosthogHttpError(400, drfError('validation_error', 'invalid', 'Invalid UUID'))
      const row = data.events.findByUuid(id)
      if (row === undefined) throw notFound()
      const events = data.events
      const distinctId = events.distinctId(row)
      const person = data.persons.withDistinctId(distinctId)
      return {
        id: events.uuid(row),
        distinct_id: distinctId,
        properties: events.properties(row),
        event: events.event(row),
        timestamp: isoMicrosOffset(events.timestamp(row)),
        person: person
          ? {
              is_identified: person.isIdentified,
              distinct_ids: sortedDistinctIds(person),
              properties: person.properties,
            }
          : null,
        elements: [],
        elements_chain: events.elementsChain(row),
      }
    })
  }
}
