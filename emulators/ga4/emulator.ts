import { googleFaultResponse } from '../google/errors.js'
import { installGoogleErrorHandler } from '../google/http.js'
import { GoogleTokenAuthority } from '../google/token-authority.js'
import { registerGoogleTokenRoutes } from '../google/token-routes.js'
import {
  createEmulatorServer,
  type EmulatorHandle,
  type ListenOptions,
  listenEmulator,
} from '../kit/index.js'
import { type Ga4Seed, seedGa4 } from './data/seed.js'
import { type CollectedEvent, registerMeasurementRoutes } from './measurement.js'
import type { QuotaLimits } from './report/quota.js'
import { registerAdminRoutes } from './routes/admin.js'
import { registerDataRoutes } from './routes/data.js'
import { Ga4State } from './state.js'

export interface Ga4EmulatorOptions extends ListenOptions {
  readonly seed?: number
  readonly accounts?: number
  readonly propertiesPerAccount?: number
  /** Report fact rows per property and day: more means bigger reports. */
  readonly factsPerDay?: number
  /** Per-property Data API token quotas (standard property limits by default). */
  readonly quota?: Partial<QuotaLimits>
  /** Share one token authority between Google emulators, so one token works on all of them. */
  readonly authority?: GoogleTokenAuthority
}

export interface Ga4Emulator extends EmulatorHandle<Ga4State> {
  /** Serves the Admin API, the Data API, the Measurement Protocol and Google's token endpoint. */
  readonly url: string
  readonly authority: GoogleTokenAuthority
  readonly seed: Ga4Seed
  /** Events the Measurement Protocol accepted. */
  collected(): CollectedEvent[]
}

/** Starts a GA4 emulator: seeded accounts and properties, report data, Google's OAuth, errors and quotas. */
export async function startGa4Emulator(options: Ga4EmulatorOptions = {}): Promise<Ga4Emulator> {
  const seedNumber = options.seed ?? 1
  const seed = seedGa4({
    seed: seedNumber,
    accounts: options.accounts ?? 3,
    propertiesPerAccount: options.propertiesPerAccount ?? 4,
  })
  const authority = options.authority ?? new GoogleTokenAuthority()
  const state = new Ga4State(seed, authority, { seed: seedNumber, factsPerDay: options.factsPerDay ?? 6 })
  if (options.quota) state.quotas.setLimits(options.quota)
  const server = createEmulatorServer({ faultResponse: googleFaultResponse })
  const { app } = server
  installGoogleErrorHandler(app)
  registerGoogleTokenRoutes(app, authority)
  registerAdminRoutes(app, state)
  registerDataRoutes(app, state)
  registerMeasurementRoutes(app, state)
  app.post('/__emulator/ga4/quota/reset', async () => {
    state.quotas.reset()
    return { reset: true }
  })
  app.get('/__emulator/ga4/collected', async () => state.collected)
  const handle = await listenEmulator(server, state, options)
  return { ...handle, authority, seed, collected: () => [...state.collected] }
}
