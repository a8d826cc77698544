/**
 * The scope an OAuth access token needs for a private API call, as PostHog derives it: each viewset names
 * a scope object, safe methods need `<object>:read` and the others `<object>:write`. The query API is
 * read-only whatever the method (running a query POSTs it), and events are read through it
 * (PostHog/posthog@master:posthog/scopes.py; `scope_object_read_actions` in posthog/api/query.py).
 */

/** Path segment under a project -> PostHog's scope object for it. */
const PROJECT_OBJECTS: Readonly<Record<string, string>> = {
  query: 'query',
  events: 'query',
  persons: 'person',
  hog_functions: 'hog_function',
  exports: 'export',
  session_recordings: 'session_recording',
  cohorts: 'cohort',
  feature_flags: 'feature_flag',
}

/** Scope objects whose writes are still reads (the query API). */
const READ_ONLY_OBJECTS = new Set(['query'])

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function objectOf(path: string): string | undefined {
  const parts = path.split('?')[0]!.split('/').filter(Boolean)
  if (parts[0] !== 'api') return undefined
  if (parts[1] === 'users') return 'user'
  if (parts[1] === 'organizations') return parts[3] === 'projects' ? 'project' : 'organization'
  if (parts[1] !== 'projects' && parts[1] !== 'environments') return undefined
  if (parts.length <= 3) return 'project'
  return PROJECT_OBJECTS[parts[3]!]
}

/** `query:read`, `person:write`…; undefined when the endpoint takes no OAuth token at all. */
export function requiredScope(method: string, path: string): string | undefined {
  const object = objectOf(path)
  if (!object) return undefined
  const read = SAFE_METHODS.has(method.toUpperCase()) || READ_ONLY_OBJECTS.has(object)
  return `${object}:${read ? 'read' : 'write'}`
}

/** A `:write` scope implies `:read` of the same object, as in PostHog's scope checks. */
export function grantsScope(granted: readonly string[], needed: string): boolean {
  if (granted.includes(needed) || granted.includes('*')) return true
  const [object, action] = needed.split(':')
  return action === 'read' && granted.includes(`${object}:write`)
}
