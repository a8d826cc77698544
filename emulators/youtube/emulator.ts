import { googleError, googleFaultResponse } from '../google/errors.js'
import { installGoogleErrorHandler } from '../google/http.js'
import { GoogleTokenAuthority } from '../google/token-authority.js'
import { registerGoogleTokenRoutes } from '../google/token-routes.js'
import {
  createEmulatorServer,
  type EmulatorHandle,
  type FaultResponse,
  type ListenOptions,
  listenEmulator,
} from '../kit/index.js'
import { seedYoutube, type YoutubeSeed } from './data/seed.js'
import { registerChannelRoutes } from './routes/channels.js'
import { registerReportRoutes } from './routes/reports.js'
import { type YoutubeQuotaLimits, YoutubeState } from './state.js'

export interface YoutubeEmulatorOptions extends ListenOptions {
  readonly seed?: number
  /** Channels of the content owner (the signed-in user always has one channel of their own). */
  readonly managedChannels?: number
  readonly videosPerChannel?: number
  /** Report facts per channel and day. */
  readonly factsPerDay?: number
  readonly quota?: Partial<YoutubeQuotaLimits>
  /** Share one token authority with other Google emulators. */
  readonly authority?: GoogleTokenAuthority
}

export interface YoutubeEmulator extends EmulatorHandle<YoutubeState> {
  /** Serves the Data API (`/youtube/v3`), the Analytics API (`/v2`) and Google's token endpoint. */
  readonly url: string
  readonly authority: GoogleTokenAuthority
  readonly seed: YoutubeSeed
}

/**
 * A 403 fault is a quota refusal (`quotaExceeded`), a 429 a burst limit (`rateLimitExceeded`), in
 * YouTube's bodies with the legacy `errors[]` (https://developers.google.com/youtube/v3/docs/errors,
 * "quotaExceeded", "rateLimitExceeded").
 */
function youtubeFaultResponse(status: number): FaultResponse {
  if (status === 403) {
    const message =
      'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.'
    return {
      body: googleError(403, message, {
        errors: [{ message, domain: 'youtube.quota', reason: 'quotaExceeded' }],
      }),
    }
  }
  if (status === 429) {
    const message = 'Rate Limit Exceeded'
    return {
      body: googleError(429, message, {
        errors: [{ message, domain: 'usageLimits', reason: 'rateLimitExceeded' }],
      }),
    }
  }
  return googleFaultResponse(status)
}

/** Starts a YouTube emulator: seeded channels and report data, Google's OAuth, quota and errors. */
export async function startYoutubeEmulator(options: YoutubeEmulatorOptions = {}): Promise<YoutubeEmulator> {
  const seedNumber = options.seed ?? 1
  const seed = seedYoutube({
    seed: seedNumber,
    managedChannels: options.managedChannels ?? 3,
    videosPerChannel: options.videosPerChannel ?? 12,
  })
  const authority = options.authority ?? new GoogleTokenAuthority()
  const state = new YoutubeState(
    seed,
    authority,
    { seed: seedNumber, factsPerDay: options.factsPerDay ?? 6 },
    { dataUnitsPerDay: 10_000, analyticsQueriesPerDay: 50_000, ...options.quota },
  )
  const server = createEmulatorServer({ faultResponse: youtubeFaultResponse })
  const { app } = server
  installGoogleErrorHandler(app, true)
  registerGoogleTokenRoutes(app, authority)
  registerChannelRoutes(app, state)
  registerReportRoutes(app, state)
  app.post('/__emulator/youtube/quota/reset', async () => {
    state.resetQuota()
    return { reset: true }
  })
  const handle = await listenEmulator(server, state, options)
  return { ...handle, authority, seed }
}
