import { DEFAULT_API_KEY, DEFAULT_SECRET_KEY, startAmplitudeEmulator } from '../emulators/amplitude/index.js'
import { DEFAULT_FATHOM_API_KEY, startFathomEmulator } from '../emulators/fathom/index.js'
import { startGa4Emulator } from '../emulators/ga4/index.js'
import { GoogleTokenAuthority, startGoogleAccountsEmulator } from '../emulators/google/index.js'
import {
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  startGreenhouseEmulator,
} from '../emulators/greenhouse/index.js'
import { DEFAULT_LEVER_API_KEY, startLeverEmulator } from '../emulators/lever/index.js'
import { DEFAULT_MATOMO_TOKEN, startMatomoEmulator } from '../emulators/matomo/index.js'
import {
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  startMixpanelEmulator,
} from '../emulators/mixpanel/index.js'
import { DEFAULT_PLAUSIBLE_API_KEY, startPlausibleEmulator } from '../emulators/plausible/index.js'
import { DEFAULT_PERSONAL_API_KEY, startPosthogEmulator } from '../emulators/posthog/index.js'
import { DEFAULT_UMAMI_LOGIN_TOKEN, startUmamiEmulator } from '../emulators/umami/index.js'
import { startYoutubeEmulator } from '../emulators/youtube/index.js'
import { MODELS, type ObjectModel } from '../src/models/index.js'

/** The body of `PUT /unified/workspace/oauth_app/{type}` for an emulated provider's OAuth app. */
export type DemoOAuthApp = Readonly<Record<string, string>>

export interface StartedEmulator {
  readonly url: string
  /** The `auth` of a connection created from held credentials. */
  readonly auth: Record<string, unknown>
  /**
   * For OAuth providers: registers an OAuth client whose redirect URI is Unigate's callback with the
   * emulated provider, and answers the OAuth app to register with the workspace.
   */
  oauthApp?(callbackUrl: string): Promise<DemoOAuthApp>
  close(): Promise<void>
}

/** One provider the demo runs: its emulator, and the `auth` a connection to it needs. */
export interface DemoProvider {
  readonly integrationType: string
  /** An analytics read that works on the emulator's data (`object` is its path), for providers whose lists need a filter. */
  readonly probe?: { readonly object: string; readonly query: Readonly<Record<string, string>> }
  start(): Promise<StartedEmulator>
}

/** Analytics lists that answer without a filter; other categories' objects come after them, in model order. */
const PLAIN_ANALYTICS_LISTS = ['analytics_property', 'analytics_visitor', 'analytics_session']

/** The first object a plain list can read (`GET /{category}/{connection}/{path}`), given the support matrix. */
export function plainListable(
  support: Readonly<Record<string, { readonly methods: Readonly<Record<string, boolean>> }>>,
): ObjectModel | undefined {
  const candidates = [
    ...PLAIN_ANALYTICS_LISTS,
    ...MODELS.filter((m) => m.category !== 'analytics').map((m) => m.objectType),
  ]
  const objectType = candidates.find((o) => support[o]?.methods.list)
  return MODELS.find((m) => m.objectType === objectType)
}

export const DEMO_OAUTH_CLIENT_ID = 'unigate-demo'
export const DEMO_OAUTH_CLIENT_SECRET = 'unigate-demo-secret'

const G = 'https://www.googleapis.com/auth/'
/** One Google token service for GA4 and YouTube; demo tokens last a month so a session never sees one expire. */
const google = new GoogleTokenAuthority({ accessTokenTtlSeconds: 30 * 24 * 3600 })
const googleToken = (scopes: string[]) => google.issueTokens({ scopes }).access_token
/** Google's consent screen (accounts.google.com), started once for GA4 and YouTube. */
let googleAccounts: Promise<{ authorizeUrl: string; close(): Promise<void> }> | undefined

/** GA4's and YouTube's OAuth app: one Google client, consent at the accounts emulator, tokens at the API's host. */
async function googleOAuthApp(apiUrl: string, callbackUrl: string): Promise<DemoOAuthApp> {
  googleAccounts ??= startGoogleAccountsEmulator({ authority: google })
  const accounts = await googleAccounts
  google.registerClient({
    clientId: DEMO_OAUTH_CLIENT_ID,
    clientSecret: DEMO_OAUTH_CLIENT_SECRET,
    redirectUris: [callbackUrl],
  })
  return {
    client_id: DEMO_OAUTH_CLIENT_ID,
    client_secret: DEMO_OAUTH_CLIENT_SECRET,
    authorize_url: accounts.authorizeUrl,
    token_url: `${apiUrl}/token`,
    revoke_url: `${apiUrl}/revoke`,
    api_url: apiUrl,
  }
}

/** Stops the consent screen the OAuth apps started, if any. */
export async function closeSharedEmulators(): Promise<void> {
  await (await googleAccounts)?.close()
}

/** Every emulated provider the demo connects; each integration adds its entry here. */
export const DEMO_PROVIDERS: readonly DemoProvider[] = [
  {
    integrationType: 'posthog',
    async start() {
      // PostHog lists and reports cover the last 30 days unless given a start: seed the 30 days up to today.
      const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000)
      const e = await startPosthogEmulator({ seed: 1, until: today.toISOString() })
      return {
        url: e.url,
        auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: e.url },
        async oauthApp(callbackUrl) {
          e.oauth.registerClient({
            clientId: DEMO_OAUTH_CLIENT_ID,
            clientSecret: DEMO_OAUTH_CLIENT_SECRET,
            redirectUris: [callbackUrl],
            name: 'Unigate demo',
          })
          return {
            client_id: DEMO_OAUTH_CLIENT_ID,
            client_secret: DEMO_OAUTH_CLIENT_SECRET,
            authorize_url: `${e.url}/oauth/authorize/`,
            token_url: `${e.url}/oauth/token/`,
            revoke_url: `${e.url}/oauth/revoke/`,
            api_url: e.url,
          }
        },
        close: () => e.close(),
      }
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
    integrationType: 'greenhouse',
    async start() {
      const e = await startGreenhouseEmulator({ seed: 1 })
      return {
        url: e.url,
        // Harvest v3 client credentials: the connection fetches its own tokens from the emulated auth host.
        auth: {
          client_id: DEFAULT_GREENHOUSE_CLIENT_ID,
          client_secret: DEFAULT_GREENHOUSE_CLIENT_SECRET,
          api_url: `${e.url}/v3`,
          token_url: `${e.url}/token`,
        },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'googleanalytics',
    async start() {
      const e = await startGa4Emulator({ seed: 1, authority: google })
      const access_token = googleToken([`${G}analytics.readonly`, `${G}analytics.edit`])
      // The Measurement Protocol secret of a seeded stream, so creating events works like every other write.
      const stream = e.seed.streams[0]
      const mp = stream ? { measurement_id: stream.measurementId, api_secret: stream.apiSecret } : {}
      return {
        url: e.url,
        auth: { access_token, api_url: e.url, ...mp },
        oauthApp: (callbackUrl) => googleOAuthApp(e.url, callbackUrl),
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'lever',
    async start() {
      const e = await startLeverEmulator({ seed: 1 })
      return {
        url: e.url,
        auth: { api_key: DEFAULT_LEVER_API_KEY, api_url: `${e.url}/v1` },
        async oauthApp(callbackUrl) {
          e.oauth.registerClient(DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET, [callbackUrl])
          return {
            client_id: DEMO_OAUTH_CLIENT_ID,
            client_secret: DEMO_OAUTH_CLIENT_SECRET,
            authorize_url: `${e.url}/authorize`,
            token_url: `${e.url}/oauth/token`,
            api_url: `${e.url}/v1`,
          }
        },
        close: () => e.close(),
      }
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
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${e.url}/api` },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'youtube',
    async start() {
      const e = await startYoutubeEmulator({ seed: 1, authority: google })
      const access_token = googleToken([`${G}youtube.readonly`, `${G}yt-analytics.readonly`])
      return {
        url: e.url,
        auth: { access_token, api_url: e.url },
        oauthApp: (callbackUrl) => googleOAuthApp(e.url, callbackUrl),
        close: () => e.close(),
      }
    },
  },
]
