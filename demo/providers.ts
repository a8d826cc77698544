import { DEFAULT_API_KEY, DEFAULT_SECRET_KEY, startAmplitudeEmulator } from '../emulators/amplitude/index.js'
import { DEFAULT_FATHOM_API_KEY, startFathomEmulator } from '../emulators/fathom/index.js'
import { startGa4Emulator } from '../emulators/ga4/index.js'
import { GoogleTokenAuthority } from '../emulators/google/index.js'
import { DEFAULT_MATOMO_TOKEN, startMatomoEmulator } from '../emulators/matomo/index.js'
import {
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  startMixpanelEmulator,
} from '../emulators/mixpanel/index.js'
import { DEFAULT_PLAUSIBLE_API_KEY, startPlausibleEmulator } from '../emulators/plausible/index.js'
import { DEFAULT_PERSONAL_API_KEY, startPosthogEmulator } from '../emulators/posthog/index.js'
import { DEFAULT_UMAMI_API_KEY, startUmamiEmulator } from '../emulators/umami/index.js'
import { startYoutubeEmulator } from '../emulators/youtube/index.js'

/** One provider the demo runs: its emulator, and the `auth` a connection to it needs. */
export interface DemoProvider {
  readonly integrationType: string
  /** A read that works on the emulator's data, for providers whose lists need a filter (and the demo's curl). */
  readonly probe?: { readonly object: string; readonly query: Readonly<Record<string, string>> }
  start(): Promise<{ url: string; auth: Record<string, unknown>; close(): Promise<void> }>
}

const G = 'https://www.googleapis.com/auth/'
/** One Google token service for GA4 and YouTube; demo tokens last a month so a session never sees one expire. */
const google = new GoogleTokenAuthority({ accessTokenTtlSeconds: 30 * 24 * 3600 })
const googleToken = (scopes: string[]) => google.issueTokens({ scopes }).access_token

/** Every emulated provider the demo connects; each integration adds its entry here. */
export const DEMO_PROVIDERS: readonly DemoProvider[] = [
  {
    integrationType: 'posthog',
    async start() {
      // PostHog lists and reports cover the last 30 days unless given a start: seed the 30 days up to today.
      const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000)
      const e = await startPosthogEmulator({ seed: 1, until: today.toISOString() })
      return { url: e.url, auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: e.url }, close: () => e.close() }
    },
  },
  {
    integrationType: 'amplitude',
    // Amplitude exports events by time window only; its seeded data ends on 2024-05-31.
    probe: { object: 'event', query: { start_gte: '2024-05-30', end_lt: '2024-05-31' } },
    async start() {
      const e = await startAmplitudeEmulator({ seed: 1 })
      const auth = { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, api_url: e.url }
      return { url: e.url, auth, close: () => e.close() }
    },
  },
  {
    integrationType: 'fathom',
    async start() {
      const e = await startFathomEmulator({ seed: 1 })
      return {
        url: e.url,
        auth: { api_key: DEFAULT_FATHOM_API_KEY, api_url: `${e.url}/v1` },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'googleanalytics',
    async start() {
      const e = await startGa4Emulator({ seed: 1, authority: google })
      const access_token = googleToken([`${G}analytics.readonly`, `${G}analytics.edit`])
      return { url: e.url, auth: { access_token, api_url: e.url }, close: () => e.close() }
    },
  },
  {
    integrationType: 'matomo',
    async start() {
      const e = await startMatomoEmulator({ seed: 1 })
      return {
        url: e.url,
        auth: { token_auth: DEFAULT_MATOMO_TOKEN, api_url: e.url },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'mixpanel',
    async start() {
      const e = await startMixpanelEmulator({ seed: 1 })
      const auth = {
        username: DEFAULT_SERVICE_ACCOUNT.username,
        secret: DEFAULT_SERVICE_ACCOUNT.secret,
        project_id: DEFAULT_PROJECT_ID,
        project_token: DEFAULT_PROJECT_TOKEN,
        api_url: e.url,
      }
      return { url: e.url, auth, close: () => e.close() }
    },
  },
  {
    integrationType: 'plausible',
    async start() {
      const e = await startPlausibleEmulator({ seed: 1 })
      return {
        url: e.url,
        auth: { api_key: DEFAULT_PLAUSIBLE_API_KEY, api_url: e.url },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'umami',
    async start() {
      const e = await startUmamiEmulator({ seed: 1 })
      return {
        url: e.url,
        auth: { api_key: DEFAULT_UMAMI_API_KEY, api_url: `${e.url}/api` },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'youtube',
    async start() {
      const e = await startYoutubeEmulator({ seed: 1, authority: google })
      const access_token = googleToken([`${G}youtube.readonly`, `${G}yt-analytics.readonly`])
      return { url: e.url, auth: { access_token, api_url: e.url }, close: () => e.close() }
    },
  },
]
