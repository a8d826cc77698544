import type { FastifyInstance, FastifyRequest } from 'fastify'
import { REST_DEFAULT_LIMIT } from '../constants.js'
import { notFound, validationError } from '../errors.js'
import { limitOffset, limitOffsetPage } from '../pagination.js'
import type { PosthogState } from '../state.js'
import {
  isProjectTeam,
  type ProjectRecord,
  serializeProject,
  serializeProjectBasic,
} from '../store/projects.js'
import { bodyObject, projectOf } from './scope.js'

const TIMEZONES = new Set(['UTC', 'Etc/UTC', ...Intl.supportedValuesOf('timeZone')])
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))

type WritableProject = Partial<
  Pick<
    ProjectRecord,
    'name' | 'productDescription' | 'timezone' | 'baseCurrency' | 'anonymizeIps' | 'appUrls' | 'weekStartDay'
  >
>

const invalidChoice = (value: unknown, attr: string) =>
  validationError(`"${String(value)}" is not a valid choice.`, 'invalid_choice', attr)

/**
 * The project serializer's validation: the first problem found is answered, as DRF's handler does
 * (PostHog/posthog@master:posthog/api/project.py; `timezone` is one of the team model's choices,
 * posthog/models/team/team.py).
 */
function writableFields(body: Record<string, unknown>): WritableProject {
  const out: { -readonly [K in keyof WritableProject]: WritableProject[K] } = {}
  if ('name' in body) {
    const name = body.name
    if (typeof name !== 'string') throw validationError('Not a valid string.', 'invalid', 'name')
    if (name.trim() === '') throw validationError('This field may not be blank.', 'blank', 'name')
    if (name.length > 200) {
      throw validationError('Ensure this field has no more than 200 characters.', 'max_length', 'name')
    }
    out.name = name
  }
  if ('product_description' in body) {
    const v = body.product_description
    if (v !== null && typeof v !== 'string')
      throw validationError('Not a valid string.', 'invalid', 'product_description')
    out.productDescription = v
  }
  if ('timezone' in body) {
    if (typeof body.timezone !== 'string' || !TIMEZONES.has(body.timezone))
      throw invalidChoice(body.timezone, 'timezone')
    out.timezone = body.timezone
  }
  if ('base_currency' in body) {
    const v = body.base_currency
    if (typeof v !== 'string' || !CURRENCIES.has(v)) throw invalidChoice(v, 'base_currency')
    out.baseCurrency = v
  }
  if ('anonymize_ips' in body) {
    if (typeof body.anonymize_ips !== 'boolean')
      throw validationError('Must be a valid boolean.', 'invalid', 'anonymize_ips')
    out.anonymizeIps = body.anonymize_ips
  }
  if ('app_urls' in body) {
    const v = body.app_urls
    if (!Array.isArray(v) || v.some((u) => typeof u !== 'string')) {
      throw validationError(`Expected a list of items but got type "${typeof v}".`, 'not_a_list', 'app_urls')
    }
    out.appUrls = v as string[]
  }
  if ('week_start_day' in body) {
    const v = body.week_start_day
    if (v !== null && v !== 0 && v !== 1) throw invalidChoice(v, 'week_start_day')
    out.weekStartDay = v
  }
  return out
}

interface OrgParams {
  readonly organizationId: string
}
interface ProjectIdParams {
  readonly projectId: string
}

function checkOrganization(state: PosthogState, id: string): void {
  if (id !== '@current' && id !== state.organization.id) throw notFound()
}

/**
 * The project a project route names, shown through its first team; another environment's id names no
 * project (`Project.objects.get(id=…)`: PostHog/posthog@00f00ca85a4c:posthog/api/routing.py `project`;
 * PostHog/posthog@5debee2fd96b:posthog/api/shared.py `ProjectBackwardCompatBasicSerializer`, whose team
 * fields such as `api_token` come from `instance.passthrough_team`).
 */
function projectTeamOf(state: PosthogState, param: string, url: string): ProjectRecord {
  const team = projectOf(state, param, url).project
  if (!isProjectTeam(team)) throw notFound()
  return team
}

export function registerProjectRoutes(app: FastifyInstance, state: PosthogState): void {
  const list = (request: FastifyRequest) => {
    const { limit, offset } = limitOffset(request, REST_DEFAULT_LIMIT)
    const search = (request.query as Record<string, unknown>).search
    const needle = typeof search === 'string' ? search.toLowerCase() : ''
    const projects = [...state.projects.values()]
      .map((d) => d.project)
      .filter(isProjectTeam)
      .filter((p) => needle === '' || p.name.toLowerCase().includes(needle))
      .sort((a, b) => a.id - b.id)
    const page = limitOffsetPage(request, projects, limit, offset)
    return { ...page, results: page.results.map(serializeProjectBasic) }
  }
  const create = (request: FastifyRequest) => {
    const fields = writableFields(bodyObject(request.body))
    const data = state.createProject(fields)
    Object.assign(data.project, fields)
    return serializeProject(data.project)
  }
  const update = (request: FastifyRequest<{ Params: ProjectIdParams }>) => {
    const project = projectTeamOf(state, request.params.projectId, request.url)
    Object.assign(project, writableFields(bodyObject(request.body)), { updatedAt: Date.now() })
    return serializeProject(project)
  }

  for (const base of ['/api/organizations/:organizationId/projects', '/api/projects'] as const) {
    const scoped = base.startsWith('/api/organizations')
    const orgCheck = (request: FastifyRequest) => {
      if (scoped) checkOrganization(state, (request.params as OrgParams).organizationId)
    }
    app.get(base, async (request) => {
      orgCheck(request)
      return list(request)
    })
    app.post(base, async (request, reply) => {
      orgCheck(request)
      return reply.code(201).send(create(request))
    })
    app.get<{ Params: ProjectIdParams }>(`${base}/:projectId`, async (request) => {
      orgCheck(request)
      return serializeProject(projectTeamOf(state, request.params.projectId, request.url))
    })
    for (const method of ['patch', 'put'] as const) {
      app[method]<{ Params: ProjectIdParams }>(`${base}/:projectId`, async (request) => {
        orgCheck(request)
        return update(request)
      })
    }
    app.delete<{ Params: ProjectIdParams }>(`${base}/:projectId`, async (request, reply) => {
      orgCheck(request)
      state.deleteProject(projectTeamOf(state, request.params.projectId, request.url).id)
      return reply.code(204).send()
    })
  }
}
