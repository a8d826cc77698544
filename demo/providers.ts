import { DEFAULT_API_KEY, DEFAULT_SECRET_KEY, startAmplitudeEmulator } from '../emulators/amplitude/index.js'
import {
  DEFAULT_BAMBOOHR_API_KEY,
  DEFAULT_BAMBOOHR_DOMAIN,
  startBamboohrEmulator,
} from '../emulators/bamboohr/index.js'
import { DEFAULT_FATHOM_API_KEY, startFathomEmulator } from '../emulators/fathom/index.js'
import { startGa4Emulator } from '../emulators/ga4/index.js'
import { GoogleTokenAuthority, startGoogleAccountsEmulator } from '../emulators/google/index.js'
import {
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  startGreenhouseEmulator,
} from '../emulators/greenhouse/index.js'
import { DEFAULT_GUSTO_CLIENT, startGustoEmulator } from '../emulators/gusto/index.js'
import { DEFAULT_HUBSPOT_TOKEN, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { DEFAULT_LEVER_API_KEY, startLeverEmulator } from '../emulators/lever/index.js'
import { DEFAULT_MATOMO_TOKEN, startMatomoEmulator } from '../emulators/matomo/index.js'
import {
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  startMixpanelEmulator,
} from '../emulators/mixpanel/index.js'
import { DEFAULT_PIPEDRIVE_TOKEN, startPipedriveEmulator } from '../emulators/pipedrive/index.js'
import { DEFAULT_PLAUSIBLE_API_KEY, startPlausibleEmulator } from '../emulators/plausible/index.js'
import { DEFAULT_PERSONAL_API_KEY, startPosthogEmulator } from '../emulators/posthog/index.js'
import { DEFAULT_UMAMI_LOGIN_TOKEN, startUmamiEmulator } from '../emulators/umami/index.js'
import { startYoutubeEmulator } from '../emulators/youtube/index.js'
import { integrationOf } from '../src/integrations/registry.js'
import { supportMatrix } from '../src/integrations/support.js'
import { modelOf } from '../src/models/index.js'

/**
 * How late the demo's Mixpanel shows a profile write. Mixpanel applies them in "real-time (less than 1
 * minute delay)" (docs.mixpanel.com/docs/tracking-methods/id-management/identifying-users-simplified); the
 * emulator's default, 30 s, is a slow case, and the demo (and the conformance suite run on it) takes a
 * quick one, so a profile write through Unigate, which answers once Mixpanel shows it, takes seconds.
 */
export const DEMO_MIXPANEL_PROFILE_LAG_MS = 2_000

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

export const DEMO_OAUTH_CLIENT_ID = 'unigate-demo'
export const DEMO_OAUTH_CLIENT_SECRET = 'unigate-demo-secret'

/**
 * Registers the demo's OAuth client (redirecting to `callbackUrl`) with an emulated authorization server,
 * and answers the workspace's OAuth app for it at the given addresses.
 */
async function demoOAuthApp(
  register: (client: {
    clientId: string
    clientSecret: string
    redirectUris: string[]
    name: string
  }) => void,
  callbackUrl: string,
  addresses: Readonly<Record<string, string>>,
): Promise<DemoOAuthApp> {
  register({
    clientId: DEMO_OAUTH_CLIENT_ID,
    clientSecret: DEMO_OAUTH_CLIENT_SECRET,
    redirectUris: [callbackUrl],
    name: 'Unigate demo',
  })
  return { client_id: DEMO_OAUTH_CLIENT_ID, client_secret: DEMO_OAUTH_CLIENT_SECRET, ...addresses }
}

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

/** The addresses of emulators the providers share (Google's consent screen), started here if not yet. */
export async function sharedEmulatorUrls(): Promise<string[]> {
  googleAccounts ??= startGoogleAccountsEmulator({ authority: google })
  return [(await googleAccounts).authorizeUrl]
}

/** Stops the consent screen the OAuth apps started, if any. */
export async function closeSharedEmulators(): Promise<void> {
  await (await googleAccounts)?.close()
}

/**
 * Where the demo's seeded data ends: the start of today (UTC), so the windows a list or report without
 * dates covers (the last days up to today) hold data. Emulators default to a fixed date so tests do not
 * depend on the clock; tests that use fixed dates start their own emulators.
 */
export const demoSeedUntil = (): string =>
  new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString()

/** Lists the demo prefers to show, where an integration has them. */
const PREFERRED_READS = ['analytics_property', 'analytics_visitor', 'analytics_session']

/**
 * A read that works on this provider's emulator, in any category: its probe, else a preferred list, else the
 * first list needing no parameter. The path is relative to the API root: `hris/{connection}/employee`.
 */
export function demoRead(
  provider: DemoProvider,
  connectionId: string,
): { path: string; query: Readonly<Record<string, string>> } | undefined {
  const integration = integrationOf(provider.integrationType)
  if (!integration) return undefined
  const category = integration.categories[0]
  if (provider.probe)
    return { path: `${category}/${connectionId}/${provider.probe.object}`, query: provider.probe.query }
  const matrix = supportMatrix(integration)
  const plain = (o: string) =>
    matrix[o]?.methods.list === true &&
    !Object.entries(matrix[o] ?? {}).some(([k, v]) => k.startsWith('list_') && v === 'supported-required')
  const object = PREFERRED_READS.find((o) => matrix[o]?.methods.list) ?? Object.keys(matrix).find(plain)
  const model = object ? modelOf(object) : undefined
  return model
    ? { path: `${model.category}/${connectionId}/${model.path}`, query: { limit: '3' } }
    : undefined
}

/** Every emulated provider the demo connects; each integration adds its entry here. */
export const DEMO_PROVIDERS: readonly DemoProvider[] = [
  {
    integrationType: 'posthog',
    async start() {
      // PostHog lists and reports cover the last 30 days unless given a start: seed the 30 days up to today.
      const e = await startPosthogEmulator({ seed: 1, until: demoSeedUntil() })
      return {
        url: e.url,
        auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: e.url },
        oauthApp: (callbackUrl) =>
          demoOAuthApp((client) => e.oauth.registerClient(client), callbackUrl, {
            authorize_url: `${e.url}/oauth/authorize/`,
            token_url: `${e.url}/oauth/token/`,
            revoke_url: `${e.url}/oauth/revoke/`,
            api_url: e.url,
          }),
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'amplitude',
    async start() {
      const e = await startAmplitudeEmulator({ seed: 1, until: demoSeedUntil() })
      const auth = { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, api_url: e.url }
      return { url: e.url, auth, close: () => e.close() }
    },
  },
  {
    integrationType: 'fathom',
    async start() {
      const e = await startFathomEmulator({ seed: 1, until: demoSeedUntil() })
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
      const e = await startMatomoEmulator({ seed: 1, until: demoSeedUntil() })
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
      const e = await startMixpanelEmulator({
        seed: 1,
        until: demoSeedUntil(),
        profileLagMs: DEMO_MIXPANEL_PROFILE_LAG_MS,
      })
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
      const e = await startPlausibleEmulator({
        seed: 1,
        // Plausible lists sites newest first and the emulator seeds traffic into the first two it creates:
        // two sites, so the first listed one has visits.
        sites: 2,
        until: demoSeedUntil(),
      })
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
      const e = await startUmamiEmulator({ seed: 1, until: demoSeedUntil() })
      return {
        url: e.url,
        auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, api_url: `${e.url}/api` },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'bamboohr',
    async start() {
      const e = await startBamboohrEmulator({ seed: 1 })
      return {
        url: e.url,
        auth: {
          api_key: DEFAULT_BAMBOOHR_API_KEY,
          company_domain: DEFAULT_BAMBOOHR_DOMAIN,
          api_url: `${e.url}/api/gateway.php`,
        },
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'gusto',
    async start() {
      // Demo tokens last a month, so a demo session never needs Gusto's (emulated) token endpoint to renew them.
      const e = await startGustoEmulator({ seed: 1, accessTokenTtlSeconds: 30 * 24 * 3600 })
      const tokens = e.oauth.issueTokens()
      return {
        url: e.url,
        auth: {
          access_token: tokens.access_token,
          refresh_token: tokens.refresh_token,
          client_id: DEFAULT_GUSTO_CLIENT.clientId,
          client_secret: DEFAULT_GUSTO_CLIENT.clientSecret,
          api_url: e.url,
        },
        oauthApp: (callbackUrl) =>
          demoOAuthApp((client) => e.oauth.registerClient(client), callbackUrl, {
            authorize_url: `${e.url}/oauth/authorize`,
            token_url: `${e.url}/oauth/token`,
            api_url: e.url,
          }),
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
  {
    integrationType: 'hubspot',
    async start() {
      const e = await startHubspotEmulator({ seed: 1 })
      return {
        url: e.url,
        auth: { token: DEFAULT_HUBSPOT_TOKEN, api_url: e.url },
        oauthApp: (callbackUrl) =>
          demoOAuthApp((client) => e.registerClient(client), callbackUrl, {
            authorize_url: `${e.url}/oauth/authorize`,
            token_url: `${e.url}/oauth/v1/token`,
            api_url: e.url,
          }),
        close: () => e.close(),
      }
    },
  },
  {
    integrationType: 'pipedrive',
    async start() {
      // A Professional plan's burst (80 per 2 s): the demo and the conformance suite read in quick bursts.
      const e = await startPipedriveEmulator({ seed: 1, burst: 80 })
      return {
        url: e.url,
        auth: { api_token: DEFAULT_PIPEDRIVE_TOKEN, api_url: e.url },
        oauthApp: (callbackUrl) =>
          demoOAuthApp((client) => e.registerClient(client), callbackUrl, {
            authorize_url: `${e.url}/oauth/authorize`,
            token_url: `${e.url}/oauth/token`,
            api_url: e.url,
          }),
        close: () => e.close(),
      }
    },
  },
]
