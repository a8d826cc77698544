import type { FastifyInstance } from 'fastify'
import { validationError } from '../errors.js'
import { executeHogQL } from '../hogql/execute.js'
import { posthogTables } from '../hogql/posthog-tables.js'
import { rowsScanned } from '../hogql/scan.js'
import { REFRESH_MODES, refreshModeOf, STALE_AFTER_MS } from '../query-cache.js'
import type { PosthogState } from '../state.js'
import { bodyObject, PROJECT_SCOPED_PREFIXES, type ProjectParams, projectOf } from './scope.js'

/**
 * `POST /api/projects/{pid}/query/` with a `HogQLQuery`: runs the emulator's HogQL subset and answers with
 * PostHog's cached-response shape (`CachedHogQLQueryResponse`: results plus `is_cached`, `last_refresh`,
 * `cache_key`, `next_allowed_client_refresh`, `timezone`…; PostHog/posthog@master:posthog/schema.py).
 * Results come from the cache unless `refresh` asks otherwise (query-cache.ts); a query takes one of the
 * team's three slots and must fit the execution budget (query-limits.ts); it runs in the project's time zone
 * (hogql/zone.ts). Async modes are answered synchronously (the emulator has no query queue).
 */
export function registerQueryRoutes(app: FastifyInstance, state: PosthogState): void {
  for (const prefix of PROJECT_SCOPED_PREFIXES) {
    app.post<{ Params: ProjectParams }>(`${prefix}/query`, async (request) => {
      const data = projectOf(state, request.params.projectId, request.url)
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
      // `QueryRequest.refresh`: a boolean or one of the `ExecutionMode` values (pydantic's message).
      if (refresh !== undefined && typeof refresh !== 'boolean' && !REFRESH_MODES.has(String(refresh))) {
        throw validationError(
          `Input should be ${[...REFRESH_MODES].map((m) => `'${m}'`).join(', ')}`,
          'invalid_input',
          'refresh',
        )
      }
      const teamId = data.project.id
      const zone = data.project.timezone
      const cacheKey = state.queryCache.keyOf(teamId, zone, text)
      const started = performance.now()
      let entry = state.queryCache.lookup(cacheKey, refreshModeOf(refresh))
      const isCached = entry !== undefined
      if (!entry) {
        const release = await state.queryLimiter.acquire(teamId)
        try {
          await state.queryLimiter.simulateWork()
          const tables = posthogTables(data)
          const result = executeHogQL(text, tables, zone, (where, table, alias) =>
            state.queryLimiter.checkBudget(rowsScanned(where, table, alias)),
          )
          entry = state.queryCache.store(cacheKey, result)
        } finally {
          release()
        }
      }
      const result = entry.result
      const seconds = (performance.now() - started) / 1000
      return {
        cache_key: entry.cacheKey,
        is_cached: isCached,
        last_refresh: new Date(entry.lastRefresh).toISOString(),
        cache_target_age: new Date(entry.lastRefresh + STALE_AFTER_MS).toISOString(),
        // `QueryRunner._refresh_frequency`: one minute (posthog/hogql_queries/query_runner.py).
        next_allowed_client_refresh: new Date(entry.lastRefresh + 60_000).toISOString(),
        timezone: zone,
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
