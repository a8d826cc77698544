import { createEmulatorServer, type Fault, listen, type RecordedRequest } from '../kit/index.js'
import { installPersonalKeyAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_PERSONAL_API_KEY, DEFAULT_PROJECT_API_KEY } from './constants.js'
import { installErrorHandler, posthogFaultResponse } from './errors.js'
import { PosthogOAuthAuthority, type PosthogOAuthOptions, registerPosthogOAuth } from './oauth/index.js'
import type { QueryLimitOptions } from './query-limits.js'
import { CAPTURE_PATHS, registerCaptureRoutes } from './routes/capture.js'
import { installCaptureDecompression } from './routes/compression.js'
import { registerEventRoutes } from './routes/events.js'
import { registerExportRoutes } from './routes/exports.js'
import { registerHogFunctionRoutes } from './routes/hog-functions.js'
import { registerMeRoutes } from './routes/me.js'
import { registerPersonRoutes } from './routes/persons.js'
import { registerProjectRoutes } from './routes/projects.js'
import { registerQueryRoutes } from './routes/query.js'
import { PosthogState } from './state.js'

export interface PosthogEmulatorSize {
  readonly projects?: number
  readonly persons?: number
  readonly sessions?: number
  /** Events of the first project (the others get a tenth); up to a million is fine. */
  readonly events?: number
}

export interface PosthogEmulatorOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  readonly host?: string
  readonly seed?: number
  readonly size?: PosthogEmulatorSize
  /**
   * Personal API keys accepted on `/api/` as `Authorization: Bearer` (default `[DEFAULT_PERSONAL_API_KEY]`;
   * https://posthog.com/docs/api#authentication).
   */
  readonly apiKeys?: readonly string[]
  /** Project API key of the first project, for capture (default `DEFAULT_PROJECT_API_KEY`). */
  readonly projectApiKey?: string
  /** PostHog's OAuth server: registered clients and the access token lifetime. */
  readonly oauth?: PosthogOAuthOptions
  /** End of the seeded data's 30-day window (ISO-8601); fixed by default so data never depends on the clock. */
  readonly until?: string
  /** Time zone of each seeded project by position (default: the first UTC, the second America/New_York). */
  readonly timezones?: readonly string[]
  /** The query API's per-team concurrency limit, slot wait, latency and execution budget (query-limits.ts). */
  readonly query?: QueryLimitOptions
}

export interface PosthogEmulator {
  /** Base URL of both the private API and the ingestion endpoints, like a self-hosted PostHog. */
  readonly url: string
  requests(): RecordedRequest[]
  clearRequests(): void
  fault(fault: Fault): void
  clearFaults(): void
  readonly state: PosthogState
  /** The OAuth authorization server (clients, tokens, its clock). */
  readonly oauth: PosthogOAuthAuthority
  close(): Promise<void>
}

/** Answers the sizes to seed: sessions follow events (about six events each) and persons follow sessions. */
function resolveSize(size: PosthogEmulatorSize = {}) {
  const events = Math.max(0, Math.floor(size.events ?? 1000))
  const sessions = Math.min(
    events,
    Math.max(events > 0 ? 1 : 0, Math.floor(size.sessions ?? Math.round(events / 6))),
  )
  const persons = Math.max(1, Math.floor(size.persons ?? Math.round(sessions / 3)))
  return { projects: Math.max(1, Math.floor(size.projects ?? 2)), seed: { persons, sessions, events } }
}

/** Starts a PostHog emulator: seeded data, PostHog's auth, endpoints, errors and HogQL subset, plus faults. */
export async function startPosthogEmulator(options: PosthogEmulatorOptions = {}): Promise<PosthogEmulator> {
  const size = resolveSize(options.size)
  const until = Date.parse(options.until ?? DEFAULT_DATA_UNTIL)
  if (Number.isNaN(until)) throw new Error(`until: '${options.until}' is not an ISO-8601 date`)
  const state = new PosthogState({
    seed: options.seed ?? 1,
    projects: size.projects,
    size: size.seed,
    apiKeys: options.apiKeys ?? [DEFAULT_PERSONAL_API_KEY],
    projectApiKey: options.projectApiKey ?? DEFAULT_PROJECT_API_KEY,
    untilMs: until,
    ...(options.timezones ? { timezones: options.timezones } : {}),
    ...(options.query ? { queryLimits: options.query } : {}),
  })
  const { app, recorder, faults } = createEmulatorServer({ faultResponse: posthogFaultResponse })
  // posthog-js sends JSON as text/plain to avoid CORS preflights.
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(String(body)))
    } catch {
      done(null, body)
    }
  })
  installErrorHandler(app)
  const oauth = new PosthogOAuthAuthority(options.oauth)
  installPersonalKeyAuth(app, state, oauth)
  registerPosthogOAuth(app, oauth)
  registerMeRoutes(app, state)
  registerProjectRoutes(app, state)
  registerPersonRoutes(app, state)
  registerEventRoutes(app, state)
  registerQueryRoutes(app, state)
  installCaptureDecompression(app, CAPTURE_PATHS)
  registerCaptureRoutes(app, state)
  registerExportRoutes(app, state)
  registerHogFunctionRoutes(app, state)
  const url = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1')
  return {
    url,
    requests: () => recorder.all(),
    clearRequests: () => recorder.clear(),
    fault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    state,
    oauth,
    close: () => app.close(),
  }
}
