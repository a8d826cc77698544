import type { FastifyInstance } from 'fastify'
import { createEmulatorServer, type Fault, listen, type RecordedRequest } from '../kit/index.js'
import { installUmamiAuth } from './auth.js'
import { DEFAULT_DATA_UNTIL, DEFAULT_UMAMI_API_KEY } from './constants.js'
import { installErrorHandler, umamiFaultResponse } from './errors.js'
import { registerReportRoutes } from './routes/reports.js'
import { registerSendRoutes } from './routes/send.js'
import { registerTrafficRoutes } from './routes/traffic.js'
import { registerWebsiteRoutes } from './routes/websites.js'
import { UmamiState } from './state.js'

export interface UmamiEmulatorOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  readonly host?: string
  readonly seed?: number
  /** Websites to seed (default 3). */
  readonly websites?: number
  /** Sessions of the first website (default 50; the second and third get a tenth). */
  readonly sessions?: number
  /** Keys accepted, as `x-umami-api-key` on `/v1` (Cloud) and Bearer on `/api` (self-hosted). */
  readonly apiKeys?: readonly string[]
  /** End of the seeded data's window (ISO-8601). */
  readonly until?: string
}

export interface UmamiEmulator {
  /** Origin: Cloud's API is at `${url}/v1`, a self-hosted one at `${url}/api`, the collector at `${url}/api/send`. */
  readonly url: string
  readonly state: UmamiState
  requests(): RecordedRequest[]
  clearRequests(): void
  fault(fault: Fault): void
  clearFaults(): void
  close(): Promise<void>
}

/** Starts an Umami emulator serving both the Cloud (`/v1`) and self-hosted (`/api`) shapes of the API. */
export async function startUmamiEmulator(options: UmamiEmulatorOptions = {}): Promise<UmamiEmulator> {
  const until = Date.parse(options.until ?? DEFAULT_DATA_UNTIL)
  if (Number.isNaN(until)) throw new Error(`until: '${options.until}' is not an ISO-8601 date`)
  const state = new UmamiState({
    seed: options.seed ?? 1,
    websites: Math.max(1, options.websites ?? 3),
    sessions: Math.max(0, options.sessions ?? 50),
    apiKeys: options.apiKeys ?? [DEFAULT_UMAMI_API_KEY],
    untilMs: until,
  })
  const { app, recorder, faults } = createEmulatorServer({ faultResponse: umamiFaultResponse })
  installErrorHandler(app)
  installUmamiAuth(app, state)
  const api = async (scope: FastifyInstance) => {
    registerWebsiteRoutes(scope, state)
    registerTrafficRoutes(scope, state)
    registerReportRoutes(scope, state)
  }
  await app.register(api, { prefix: '/v1' })
  await app.register(api, { prefix: '/api' })
  registerSendRoutes(app, state)
  app.get('/api/heartbeat', async () => ({ ok: true }))
  const url = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1')
  return {
    url,
    state,
    requests: () => recorder.all(),
    clearRequests: () => recorder.clear(),
    fault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    close: () => app.close(),
  }
}
