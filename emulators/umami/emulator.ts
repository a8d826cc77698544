import type { FastifyInstance } from 'fastify'
import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
  parseUntil,
} from '../kit/index.js'
import { installUmamiAuth, registerLoginRoute } from './auth.js'
import {
  DEFAULT_DATA_UNTIL,
  DEFAULT_UMAMI_API_KEY,
  DEFAULT_UMAMI_LOGIN_TOKEN,
  DEFAULT_UMAMI_USER,
  type UmamiDatabase,
} from './constants.js'
import { installErrorHandler, umamiFaultResponse } from './errors.js'
import { registerReportRoutes } from './routes/reports.js'
import { registerSendRoutes } from './routes/send.js'
import { registerTrafficRoutes } from './routes/traffic.js'
import { registerWebsiteRoutes } from './routes/websites.js'
import { UmamiState } from './state.js'
import type { UmamiRelease } from './units.js'

export interface UmamiEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Websites to seed (default 3). */
  readonly websites?: number
  /** Sessions of the first website (default 50; the second and third get a tenth). */
  readonly sessions?: number
  /** Cloud API keys accepted, as `x-umami-api-key` on `/v1`. */
  readonly apiKeys?: readonly string[]
  /** Self-hosted login tokens accepted as Bearer on `/api` before any login (default one). */
  readonly loginTokens?: readonly string[]
  /** The self-hosted account `POST /api/auth/login` accepts (default admin / umami). */
  readonly user?: { readonly username: string; readonly password: string }
  /** End of the seeded data's window (ISO-8601). */
  readonly until?: string
  /**
   * Whose unit rules `/pageviews` applies: `3.1` (default, Umami Cloud) or `3.0` (v2.x to v3.0.3, which
   * keep hours for 48 hours and days for 6 calendar months only; see units.ts).
   */
  readonly release?: UmamiRelease
  /**
   * The analytics database of the self-hosted shape (`/api`): `postgresql` (default) or `clickhouse`, which
   * a server runs its reports on when CLICKHOUSE_URL is set (umami-software/umami@v3.1.0:src/lib/db.ts,
   * `runQuery`). The Cloud shape (`/v1`) is always ClickHouse, whose reports count whole hours (its usage
   * metering exists for ClickHouse only: src/queries/sql/events/getEventUsage.ts; see constants.ts).
   */
  readonly selfHostedDatabase?: UmamiDatabase
}

export interface UmamiEmulator extends EmulatorHandle<UmamiState> {
  /** Origin: Cloud's API is at `${url}/v1`, a self-hosted one at `${url}/api`, the collector at `${url}/api/send`. */
  readonly url: string
}

/** Starts an Umami emulator serving both the Cloud (`/v1`) and self-hosted (`/api`) shapes of the API. */
export async function startUmamiEmulator(options: UmamiEmulatorOptions = {}): Promise<UmamiEmulator> {
  const until = parseUntil(options.until, DEFAULT_DATA_UNTIL)
  const state = new UmamiState({
    seed: options.seed ?? 1,
    websites: Math.max(1, options.websites ?? 3),
    sessions: Math.max(0, options.sessions ?? 50),
    apiKeys: options.apiKeys ?? [DEFAULT_UMAMI_API_KEY],
    loginTokens: options.loginTokens ?? [DEFAULT_UMAMI_LOGIN_TOKEN],
    user: options.user ?? DEFAULT_UMAMI_USER,
    untilMs: until,
    release: options.release ?? '3.1',
  })
  const server = createEmulatorServer({ faultResponse: umamiFaultResponse })
  const { app } = server
  installErrorHandler(app)
  installUmamiAuth(app, state)
  const api = (database: UmamiDatabase) => async (scope: FastifyInstance) => {
    registerWebsiteRoutes(scope, state)
    registerTrafficRoutes(scope, state)
    registerReportRoutes(scope, state, database)
  }
  await app.register(api('clickhouse'), { prefix: '/v1' })
  await app.register(api(options.selfHostedDatabase ?? 'postgresql'), { prefix: '/api' })
  registerSendRoutes(app, state)
  registerLoginRoute(app, state)
  app.get('/api/heartbeat', async () => ({ ok: true }))
  return listenEmulator(server, state, options)
}
