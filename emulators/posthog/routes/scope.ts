import { notFound } from '../errors.js'
import type { PosthogState, ProjectData } from '../state.js'

/**
 * Project-scoped routes exist under both prefixes and name a team by its id: `/api/environments/{id}/` that
 * team, `/api/projects/{id}/` the team with the project's id (its first team), which PostHog looks up as
 * `Team.objects.get(id=project_id)` (PostHog/posthog@00f00ca85a4c:posthog/api/routing.py `team`, "KLUDGE:
 * This is just for the period of transition to project environments").
 */
export const PROJECT_SCOPED_PREFIXES = ['/api/projects/:projectId', '/api/environments/:projectId'] as const

export interface ProjectParams {
  readonly projectId: string
}

/**
 * The team a path names; 404 when there is none. `@current` is the user's current team under
 * `/api/environments/`, its project's first team under `/api/projects/` (routing.py `parents_query_dict`).
 */
export function projectOf(state: PosthogState, param: string, url: string): ProjectData {
  const current = () => {
    const team = state.projects.get(state.currentTeamId)?.project
    return url.startsWith('/api/environments/') ? team?.id : team?.projectId
  }
  const id = param === '@current' ? current() : /^\d+$/.test(param) ? Number(param) : Number.NaN
  const data = id === undefined ? undefined : state.projects.get(id)
  if (!data) throw notFound()
  return data
}

export function bodyObject(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
}
