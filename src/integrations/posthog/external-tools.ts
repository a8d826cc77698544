import type { ExternalTool } from '../types.js'

/**
 * PostHog endpoints outside the unified analytics model, offered to LLM agents as tools
 * (`include_external_tools=true`). `{project_id}` defaults to the connection's project, learned at
 * verification. Paths and bodies follow PostHog's API reference (posthog.com/docs/api). Only endpoints
 * the PostHog emulator serves are offered, so every tool here is exercised against it.
 */
const PROJECT_ID: ExternalTool['parameters'][number] = {
  name: 'project_id',
  in: 'path',
  type: 'string',
  description: 'Project id; the connection’s project when omitted.',
}

export const posthogExternalTools: readonly ExternalTool[] = [
  {
    name: 'run_hogql_query',
    description:
      'Run a HogQL (SQL) query over the project’s events, persons and sessions tables. Returns ' +
      '{columns, results (rows as arrays), hasMore}. Use it for questions the unified tools cannot answer, ' +
      'such as custom aggregations; add a LIMIT.',
    method: 'POST',
    path: '/api/projects/{project_id}/query/',
    // HogQL is a SELECT-only language (posthog.com/docs/hogql): the POST reads. Its tables hold events,
    // persons and sessions, so it needs the read grant of all three.
    access: 'read',
    objects: ['analytics_event', 'analytics_visitor', 'analytics_session'],
    parameters: [
      {
        name: 'query',
        in: 'body',
        type: 'object',
        required: true,
        description:
          'The query object: {"kind": "HogQLQuery", "query": "SELECT event, count() FROM events GROUP BY event LIMIT 10"}.',
      },
      PROJECT_ID,
    ],
  },
  {
    name: 'update_person_property',
    description:
      'Set one property on a person (a visitor), e.g. a plan or a company. Returns nothing on success; ' +
      'PostHog applies it shortly after.',
    method: 'POST',
    path: '/api/projects/{project_id}/persons/{person_id}/update_property/',
    access: 'write',
    objects: ['analytics_visitor'],
    parameters: [
      {
        name: 'person_id',
        in: 'path',
        type: 'string',
        required: true,
        description: 'The person id (a visitor id).',
      },
      { name: 'key', in: 'body', type: 'string', required: true, description: 'Property name.' },
      { name: 'value', in: 'body', type: 'string', required: true, description: 'Property value.' },
      PROJECT_ID,
    ],
  },
]
