import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { isoMicrosOffset } from '../../kit/index.js'
import { REST_DEFAULT_LIMIT } from '../constants.js'
import { drfError, PosthogHttpError, validationError } from '../errors.js'
import { limitOffset, limitOffsetPage } from '../pagination.js'
import type { PosthogState, ProjectData } from '../state.js'
import type { CapturedEvent } from '../store/events.js'
import { bodyObject, PROJECT_SCOPED_PREFIXES, type ProjectParams, projectOf } from './scope.js'

/**
 * CDP destinations (hog functions) of type `destination` built from the `template-webhook` template: for each
 * event captured into the project, the emulator makes the webhook's HTTP call with the templated body and
 * headers, as PostHog's CDP does. Only whole-value templates (`"{event}"`, `"{person}"`, `"{project}"`) are
 * rendered; PostHog signs nothing, so a receiver relies on a secret it put in the headers
 * (PostHog/posthog@master:posthog/api/hog_function.py; the webhook template in posthog/cdp/templates/).
 */
export interface HogFunction {
  readonly id: string
  name: string
  readonly type: 'destination'
  readonly template_id: string
  enabled: boolean
  deleted: boolean
  inputs: Record<string, { value: unknown }>
  filters: { events?: { id: string; type: 'events' }[] }
  readonly created_at: string
  updated_at: string
}

export interface HogInvocation {
  readonly functionId: string
  readonly url: string
  readonly status: number | 'error'
}

interface HogState {
  readonly functions: Map<number, Map<string, HogFunction>>
  readonly invocations: HogInvocation[]
}

const hogStates = new WeakMap<PosthogState, HogState>()

function hogStateOf(state: PosthogState): HogState {
  let hog = hogStates.get(state)
  if (!hog) {
    hog = { functions: new Map(), invocations: [] }
    hogStates.set(state, hog)
  }
  return hog
}

/** The destination calls made so far (for tests asserting what the emulator sent). */
export function hogInvocations(state: PosthogState): readonly HogInvocation[] {
  return hogStateOf(state).invocations
}

function functionsOf(state: PosthogState, projectId: number): Map<string, HogFunction> {
  const hog = hogStateOf(state)
  let map = hog.functions.get(projectId)
  if (!map) {
    map = new Map()
    hog.functions.set(projectId, map)
  }
  return map
}

function render(template: unknown, globals: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const whole = /^\{(\w+)\}$/.exec(template)
    return whole && whole[1]! in globals ? globals[whole[1]!] : template
  }
  if (Array.isArray(template)) return template.map((t) => render(t, globals))
  if (template && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, render(v, globals)]))
  }
  return template
}

/** The CDP's `person` global: the event's person (none for a person-less event). */
function personGlobal(data: ProjectData, event: CapturedEvent) {
  const person = data.persons.withDistinctId(event.distinctId)
  return person ? { id: person.uuid, properties: person.properties } : null
}

/** Runs the project's enabled webhook destinations for one captured event (fire and forget, like the CDP). */
export function runDestinations(state: PosthogState, data: ProjectData, event: CapturedEvent): void {
  const functions = hogStates.get(state)?.functions.get(data.project.id)
  if (!functions) return
  const globals = {
    event: {
      uuid: event.uuid,
      event: event.event,
      distinct_id: event.distinctId,
      properties: event.properties,
      elements_chain: event.elementsChain,
      timestamp: isoMicrosOffset(event.timestamp),
      url: '',
    },
    person: personGlobal(data, event),
    project: { id: data.project.id, name: data.project.name, url: '' },
  }
  for (const fn of functions.values()) {
    if (!fn.enabled || fn.deleted) continue
    const wanted = fn.filters.events?.map((e) => e.id)
    if (wanted && wanted.length > 0 && !wanted.includes(event.event)) continue
    const url = String(fn.inputs.url?.value ?? '')
    const headers = (render(fn.inputs.headers?.value ?? {}, globals) ?? {}) as Record<string, string>
    const body = JSON.stringify(
      render(fn.inputs.body?.value ?? { event: '{event}', person: '{person}' }, globals),
    )
    const invocations = hogStateOf(state).invocations
    // Header names are case-insensitive: a configured Content-Type replaces the default one.
    const sent = new Headers({ 'content-type': 'application/json' })
    for (const [name, value] of Object.entries(headers)) sent.set(name, String(value))
    fetch(url, {
      method: String(fn.inputs.method?.value ?? 'POST'),
      headers: sent,
      body,
    }).then(
      (res) => invocations.push({ functionId: fn.id, url, status: res.status }),
      () => invocations.push({ functionId: fn.id, url, status: 'error' }),
    )
  }
}

function view(fn: HogFunction) {
  return { ...fn, hog: 'fetch(inputs.url, {...})', bytecode: [], status: { state: 1 } }
}

/**
 * A hog function as the list shows it: `HogFunctionMinimalSerializer`'s fields only, so neither `inputs` (the
 * webhook's URL and headers) nor `deleted` (PostHog/posthog@bb3f43dbb62b:posthog/api/hog_function.py,
 * `HogFunctionViewSet.get_serializer_class`: the minimal serializer "if self.action == 'list'").
 */
function listView(fn: HogFunction) {
  return {
    id: fn.id,
    type: fn.type,
    name: fn.name,
    description: '',
    created_at: fn.created_at,
    created_by: null,
    updated_at: fn.updated_at,
    enabled: fn.enabled,
    hog: 'fetch(inputs.url, {...})',
    filters: fn.filters,
    icon_url: null,
    template: { id: fn.template_id },
    status: { state: 1 },
    execution_order: null,
  }
}

/**
 * DRF's `SearchFilter` (the viewset's `search_fields = ["name", "description"]`): the `search` parameter is split
 * into terms at spaces and commas (quotes keep a phrase), and a row matches when every term is contained,
 * case-insensitively, in one of the fields (rest_framework/filters.py `SearchFilter.get_search_terms`,
 * `filter_queryset`: `icontains` ORed across fields, ANDed across terms). Descriptions are empty here.
 */
function searchTerms(search: string): string[] {
  const terms: string[] = []
  for (const match of search.matchAll(/"([^"]*)"|([^\s,]+)/g)) {
    const term = (match[1] ?? match[2] ?? '').trim()
    if (term !== '') terms.push(term.toLowerCase())
  }
  return terms
}

export function registerHogFunctionRoutes(app: FastifyInstance, state: PosthogState): void {
  for (const prefix of PROJECT_SCOPED_PREFIXES) {
    /**
     * The list: deleted functions left out (`safely_get_queryset` filters `deleted=False`), ordered by
     * `execution_order` then newest `updated_at` first, filtered by `type` (a comma-separated list),
     * `enabled` and `search` (`HogFunctionFilterSet`, `search_fields`), in DRF limit/offset pages of 100
     * (PostHog/posthog@bb3f43dbb62b:posthog/api/hog_function.py; `LimitOffsetPagination` and `PAGE_SIZE` 100 in
     * PostHog/posthog@000798bf8784:posthog/settings/web.py `REST_FRAMEWORK`). Every function here is a
     * destination with no execution order.
     */
    app.get(`${prefix}/hog_functions/`, async (request) => {
      const data = projectOf(state, (request.params as ProjectParams).projectId, request.url)
      const query = request.query as Record<string, unknown>
      const types = typeof query.type === 'string' ? query.type.split(',') : undefined
      const enabled =
        query.enabled === 'true' || query.enabled === 'True' || query.enabled === '1'
          ? true
          : query.enabled === 'false' || query.enabled === 'False' || query.enabled === '0'
            ? false
            : undefined
      const terms = typeof query.search === 'string' ? searchTerms(query.search) : []
      const rows = [...functionsOf(state, data.project.id).values()]
        .filter((f) => !f.deleted)
        .filter((f) => types === undefined || types.includes(f.type))
        .filter((f) => enabled === undefined || f.enabled === enabled)
        .filter((f) => terms.every((t) => f.name.toLowerCase().includes(t)))
        .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0))
        .map(listView)
      const { limit, offset } = limitOffset(request, REST_DEFAULT_LIMIT)
      return limitOffsetPage(request, rows, limit, offset)
    })
    // 201 with the function (full serializer): the viewset keeps DRF's `CreateModelMixin.create`
    // (PostHog/posthog@bb3f43dbb62b:posthog/api/hog_function.py overrides `perform_create` only).
    app.post(`${prefix}/hog_functions/`, async (request, reply) => {
      const data = projectOf(state, (request.params as ProjectParams).projectId, request.url)
      const body = bodyObject(request.body)
      if (body.type !== 'destination')
        throw validationError('Only destinations are supported here.', 'invalid', 'type')
      if (body.template_id !== 'template-webhook')
        throw validationError('Unknown template.', 'invalid', 'template_id')
      const inputs = bodyObject(body.inputs) as HogFunction['inputs']
      const url = inputs.url?.value
      if (typeof url !== 'string' || !/^https?:\/\//.test(url))
        throw validationError('This field is required.', 'required', 'inputs__url')
      const fn: HogFunction = {
        id: randomUUID(),
        name: typeof body.name === 'string' ? body.name : 'HTTP Webhook',
        type: 'destination',
        template_id: 'template-webhook',
        enabled: body.enabled !== false,
        deleted: false,
        inputs,
        filters: bodyObject(body.filters) as HogFunction['filters'],
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      }
      functionsOf(state, data.project.id).set(fn.id, fn)
      return reply.code(201).send(view(fn))
    })
    app.get(`${prefix}/hog_functions/:id/`, async (request) => {
      const data = projectOf(state, (request.params as ProjectParams).projectId, request.url)
      const fn = functionsOf(state, data.project.id).get((request.params as { id: string }).id)
      if (!fn || fn.deleted)
        throw new PosthogHttpError(404, drfError('invalid_request', 'not_found', 'Not found.'))
      return view(fn)
    })
    app.patch(`${prefix}/hog_functions/:id/`, async (request) => {
      const data = projectOf(state, (request.params as ProjectParams).projectId, request.url)
      const fn = functionsOf(state, data.project.id).get((request.params as { id: string }).id)
      if (!fn || fn.deleted)
        throw new PosthogHttpError(404, drfError('invalid_request', 'not_found', 'Not found.'))
      const body = bodyObject(request.body)
      if (typeof body.enabled === 'boolean') fn.enabled = body.enabled
      if (body.deleted === true) fn.deleted = true
      if (typeof body.name === 'string') fn.name = body.name
      fn.updated_at = new Date().toISOString()
      return view(fn)
    })
    // PostHog keeps hog functions: DELETE answers a bare 405 (no body), a PATCH with `deleted: true` removes
    // one (PostHog/posthog@f26edd043987:posthog/api/forbid_destroy_model.py `ForbidDestroyModel.destroy`,
    // mixed into `HogFunctionViewSet` in posthog/api/hog_function.py).
    app.delete(`${prefix}/hog_functions/:id/`, async (_request, reply) => reply.code(405).send())
  }
}
