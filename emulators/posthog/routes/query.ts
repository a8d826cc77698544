import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { validationError } from '../errors.js'
import { executeHogQL } from '../hogql/execute.js'
import { posthogTables } from '../hogql/posthog-tables.js'
import type { PosthogState } from '../state.js'
import { bodyObject, PROJECT_SCOPED_PREFIXES, type ProjectParams, projectOf } from './scope.js'

const REFRESH_MODES = new Set([
  'blocking',
  'async',
  'lazy_async',
  'force_blocking',
  'force_async',
  'force_cache',
  'async_except_on_cache_miss',
])

/**
 * `POST /api/projects/{pid}/query/` with a `HogQLQuery`: runs the emulator's HogQL subset and answers with
 * PostHog's response shape. Every refresh mode is answered synchronously (the emulator has no query queue).
 */
export function registerQueryRoutes(app: FastifyInstance, state: PosthogState): void {
  for (const prefix of PROJECT_SCOPED_PREFIXES) {
    app.post<{ Params: ProjectParams }>(`${prefix}/query`, async (request) => {
      const data = projectOf(state, request.params.projectId)
      const body = bodyObject(request.body)
      const query = body.query
      if (!query || typeof query !== 'object' || Array.isArray(query)) {
        throw validationError('This field is required.', 'required', 'query')
      }
      const { kind, query: text } = query as Record<string, unknown>
      if (typeof kind !== 'string')
        throw validationError('Query kind is required.', 'invalid_input', 'query.kind')
      if (kind !== 'HogQLQuery') {
        throw validationError(
          `Query kind '${kind}' is not supported by the PostHog emulator; use HogQLQuery.`,
          'unsupported_by_emulator',
          'query.kind',
        )
      }
      if (typeof text !== 'string' || text.trim() === '') {
        throw validationError('Field required', 'invalid_input', 'query.query')
      }
      const refresh = body.refresh
      if (refresh !== undefined && typeof refresh !== 'boolean' && !REFRESH_MODES.has(String(refresh))) {
        throw validationError(
          `Input should be ${[...REFRESH_MODES].map((m) => `'${m}'`).join(', ')}`,
          'invalid_input',
          'refresh',
        )
      }
      const started = performance.now()
      const result = executeHogQL(text, posthogTables(data), data.project.timezone)
      const seconds = (performance.now() - started) / 1000
      return {
        cache_key: `cache_${createHash('sha1').update(text).digest('hex')}`,
        is_cached: false,
        last_refresh: new Date().toISOString(),
        timezone: data.project.timezone,
        columns: result.columns,
        types: result.types,
        results: result.results,
        hasMore: result.hasMore,
        limit: result.limit,
        offset: result.offset,
        hogql: text,
        clickhouse: `/* emulated */ ${text}`,
        timings: [{ k: './query', t: seconds }],
        modifiers: {},
        query_status: null,
      }
    })
  }
}
