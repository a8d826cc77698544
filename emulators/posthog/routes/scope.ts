import { notFound } from '../errors.js'
import type { PosthogState, ProjectData } from '../state.js'

/** Project-scoped routes exist under both prefixes: newer PostHog calls projects "environments". */
export const PROJECT_SCOPED_PREFIXES = ['/api/projects/:projectId', '/api/environments/:projectId'] as const

export interface ProjectParams {
  readonly projectId: string
}

/** The project a path names (`@current` is the user's current project); 404 when there is none. */
export function projectOf(state: PosthogState, param: string): ProjectData {
  const id = param === '@current' ? state.currentProjectId : /^\d+$/.test(param) ? Number(param) : Number.NaN
  const data = state.projects.get(id)
  if (!data) throw notFound()
  return data
}

export function bodyObject(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
}
