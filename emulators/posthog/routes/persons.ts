import type { FastifyInstance, FastifyRequest } from 'fastify'
import { isoMicros, isUuid } from '../../kit/index.js'
import { REST_DEFAULT_LIMIT } from '../constants.js'
import { drfError, notFound, PosthogHttpError, validationError } from '../errors.js'
import { absoluteUrl, limitOffset } from '../pagination.js'
import type { PosthogState } from '../state.js'
import {
  applyPersonUpdate,
  type PersonRecord,
  type PersonStore,
  sortedDistinctIds,
} from '../store/persons.js'
import { bodyObject, PROJECT_SCOPED_PREFIXES, type ProjectParams, projectOf } from './scope.js'

const DISPLAY_NAME_PROPERTIES = [
  'email',
  'Email',
  '$email',
  'name',
  'Name',
  'username',
  'Username',
  'UserName',
]

/**
 * PostHog's display name: the first set display property, else an identified distinct id, else the id.
 * PostHog/posthog@master:posthog/api/person.py (`get_person_name_helper`, `PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES`).
 */
function displayName(person: PersonRecord): string {
  for (const key of DISPLAY_NAME_PROPERTIES) {
    const v = person.properties[key]
    if (v) return String(v)
  }
  return sortedDistinctIds(person)[0] ?? String(person.id)
}

/**
 * The detail view (`GET …/persons/{id}/`): `PersonSerializer`, whose fields are id (the numeric id), name,
 * distinct_ids (identified first), properties, created_at and uuid; no last_seen_at.
 * PostHog/posthog@master:posthog/api/person.py (`PersonSerializer.Meta.fields`, `to_representation`).
 */
export function serializePerson(person: PersonRecord): Record<string, unknown> {
  return {
    id: person.id,
    name: displayName(person),
    distinct_ids: sortedDistinctIds(person),
    properties: person.properties,
    created_at: isoMicros(person.createdAt),
    uuid: person.uuid,
  }
}

/** `get_serialized_people` keeps at most this many distinct ids per person. */
const LIST_DISTINCT_ID_LIMIT = 1000

/**
 * A row of the list (`GET …/persons/`): not `PersonSerializer` but `get_serialized_people`, a
 * `SerializedPerson` whose `id` is the uuid, with `type`, `is_identified`, `matched_recordings` and
 * `value_at_data_point`, no last_seen_at, and distinct_ids in the order the database returns them (no sort:
 * the anonymous id usually comes first). PostHog/posthog@master:posthog/api/person.py (`PersonViewSet.list`),
 * posthog/queries/actor_base_query.py (`get_serialized_people`), posthog/hogql_queries/actor_strategies.py
 * (`PersonStrategy.get_actors`: distinct ids selected without ORDER BY).
 */
export function serializePersonListRow(person: PersonRecord): Record<string, unknown> {
  return {
    type: 'person',
    id: person.uuid,
    uuid: person.uuid,
    created_at: isoMicros(person.createdAt),
    properties: person.properties,
    is_identified: person.isIdentified,
    name: displayName(person),
    distinct_ids: person.distinctIds.slice(0, LIST_DISTINCT_ID_LIMIT),
    matched_recordings: [],
    value_at_data_point: null,
  }
}

interface PersonParams extends ProjectParams {
  readonly personId: string
}

/** Persons are addressed by numeric id or uuid; a distinct id gets PostHog's hint to filter instead. */
function personOf(store: PersonStore, key: string): PersonRecord {
  if (!/^\d+$/.test(key) && !isUuid(key)) {
    throw validationError(
      `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${key} instead.`,
    )
  }
  const person = store.withIdOrUuid(key)
  if (!person) throw notFound()
  return person
}

function filtered(store: PersonStore, query: Record<string, unknown>): PersonRecord[] {
  if (query.properties !== undefined) {
    throw validationError(
      'The properties filter is not supported by the PostHog emulator.',
      'unsupported_by_emulator',
      'properties',
    )
  }
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)
  const distinctId = str(query.distinct_id)
  const email = str(query.email)
  const search = str(query.search)
  // Persons created more than a day in the future are left out (`filter_future_persons`).
  const horizon = Date.now() + 86_400_000
  const matches = (p: PersonRecord) => {
    if (p.createdAt >= horizon) return false
    if (distinctId !== undefined && !p.distinctIds.includes(distinctId)) return false
    if (email !== undefined && p.properties.email !== email) return false
    if (search !== undefined) {
      // Email contains the text, or a distinct id (or, for a uuid, the person's id) is it.
      const mail = typeof p.properties.email === 'string' ? p.properties.email.toLowerCase() : ''
      const idMatch = p.distinctIds.includes(search) || p.uuid === search.toLowerCase()
      if (!mail.includes(search.toLowerCase()) && !idMatch) return false
    }
    return true
  }
  return store.list.filter(matches).sort((a, b) => b.createdAt - a.createdAt || compareText(b.uuid, a.uuid))
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * One page of the list. ClickHouse picks the page's persons ordered by "created_at DESC, id DESC" (`id` is
 * the uuid) with LIMIT/OFFSET; `get_serialized_people` then loads them and orders the page by
 * "created_at DESC, uuid", so persons created at the same instant swap places within a page but never
 * cross pages. PostHog/posthog@a8b2677e87b7:posthog/api/person.py (`PersonViewSet.list`: `PersonQuery(…)
 * .get_query(paginate=True, filter_future_persons=True)`), PostHog/posthog@735c646cced2:posthog/queries/
 * person_query.py (`get_query`: `ORDER BY argMax(person.created_at, version) DESC, id DESC`,
 * `filter_future_persons`, `_get_search_clauses`), posthog/queries/actor_base_query.py (`get_serialized_people`).
 */
function pageOf(persons: readonly PersonRecord[], offset: number, limit: number): PersonRecord[] {
  return persons
    .slice(offset, offset + limit)
    .sort((a, b) => b.createdAt - a.createdAt || compareText(a.uuid, b.uuid))
}

/** PostHog's own refusal of a missing field, where `code` and `detail` are swapped. */
function required(body: Record<string, unknown>, attr: string): void {
  if (body[attr] === undefined || body[attr] === null) {
    throw new PosthogHttpError(400, drfError('validation_error', 'This field is required.', 'required', attr))
  }
}

/**
 * Property writes are a `$set` event in PostHog (applied a moment later); the emulator applies them at once
 * and answers 202 with no body, as PostHog does; DELETE answers 202 too, and POST (create) is refused with 405
 * (PostHog/posthog@master:posthog/api/person.py `PersonViewSet`).
 */
export function registerPersonRoutes(app: FastifyInstance, state: PosthogState): void {
  for (const prefix of PROJECT_SCOPED_PREFIXES) {
    const base = `${prefix}/persons`
    app.get<{ Params: ProjectParams }>(base, async (request: FastifyRequest<{ Params: ProjectParams }>) => {
      const store = projectOf(state, request.params.projectId, request.url).persons
      const { limit, offset } = limitOffset(request, REST_DEFAULT_LIMIT)
      const page = pageOf(filtered(store, request.query as Record<string, unknown>), offset, limit)
      const next =
        page.length >= limit
          ? absoluteUrl(request, { limit: String(limit), offset: String(offset + limit) })
          : null
      const previous =
        offset - limit >= 0
          ? absoluteUrl(request, { limit: String(limit), offset: String(offset - limit) })
          : null
      return { results: page.map(serializePersonListRow), next, previous }
    })
    app.post(base, async () => {
      throw new PosthogHttpError(
        405,
        drfError(
          'invalid_request',
          'method_not_allowed',
          'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
        ),
      )
    })
    app.get<{ Params: PersonParams }>(`${base}/:personId`, async (request) => {
      const store = projectOf(state, request.params.projectId, request.url).persons
      return serializePerson(personOf(store, request.params.personId))
    })
    for (const method of ['patch', 'put'] as const) {
      app[method]<{ Params: PersonParams }>(`${base}/:personId`, async (request, reply) => {
        const store = projectOf(state, request.params.projectId, request.url).persons
        const person = personOf(store, request.params.personId)
        const body = bodyObject(request.body)
        required(body, 'properties')
        applyPersonUpdate(person, { $set: bodyObject(body.properties) })
        return reply.code(202).send()
      })
    }
    app.post<{ Params: PersonParams }>(`${base}/:personId/update_property`, async (request, reply) => {
      const person = personOf(
        projectOf(state, request.params.projectId, request.url).persons,
        request.params.personId,
      )
      const body = bodyObject(request.body)
      required(body, 'value')
      required(body, 'key')
      applyPersonUpdate(person, { $set: { [String(body.key)]: body.value } })
      return reply.code(202).send()
    })
    app.post<{ Params: PersonParams }>(`${base}/:personId/delete_property`, async (request, reply) => {
      const person = personOf(
        projectOf(state, request.params.projectId, request.url).persons,
        request.params.personId,
      )
      const key = bodyObject(request.body).$unset
      if (typeof key !== 'string') throw validationError('Unable to delete property', 'invalid', '$unset')
      applyPersonUpdate(person, { $unset: [key] })
      return reply.code(201).send({ success: true })
    })
    app.delete<{ Params: PersonParams }>(`${base}/:personId`, async (request, reply) => {
      const store = projectOf(state, request.params.projectId, request.url).persons
      store.remove(personOf(store, request.params.personId))
      return reply.code(202).send()
    })
  }
}
