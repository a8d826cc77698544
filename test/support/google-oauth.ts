import { type Ga4Emulator, startGa4Emulator } from '../../emulators/ga4/index.js'
import { type GoogleAccountsEmulator, startGoogleAccountsEmulator } from '../../emulators/google/index.js'
import ga4Definition from '../../src/integrations/ga4/definition.js'
import { integrationOf } from '../../src/integrations/registry.js'
import type { AuthServer } from './auth-server.js'
import { browserGet, browserPost } from './auth-server.js'

/** GA4's integration type (Unified names it `googleanalytics`). */
export const GA4 = ga4Definition.type
export const CLIENT_ID = 'unigate-auth-test.apps.googleusercontent.com'
export const CLIENT_SECRET = 'GOCSPX-auth-test'
const READONLY = 'https://www.googleapis.com/auth/analytics.readonly'

export interface GoogleSetup {
  readonly ga4: Ga4Emulator
  readonly accounts: GoogleAccountsEmulator
  close(): Promise<void>
}

export async function startGoogle(): Promise<GoogleSetup> {
  const ga4 = await startGa4Emulator()
  const accounts = await startGoogleAccountsEmulator({ authority: ga4.authority })
  return {
    ga4,
    accounts,
    async close() {
      await accounts.close()
      await ga4.close()
    },
  }
}

/** Registers Unigate's callback with the emulated Google and the app with the workspace. */
export async function configureGoogleApp(s: AuthServer, g: GoogleSetup): Promise<void> {
  g.ga4.authority.registerClient({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${s.url}/unified/integration/oauth/callback`],
  })
  const res = await s.api('PUT', `/unified/workspace/oauth_app/${GA4}`, {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    authorize_url: g.accounts.authorizeUrl,
    token_url: `${g.ga4.url}/token`,
    revoke_url: `${g.ga4.url}/revoke`,
    api_url: g.ga4.url,
  })
  if (res.status !== 200) throw new Error(`oauth app: ${res.status} ${JSON.stringify(res.body)}`)
}

/** What the user does on the consent page: the same form post the page's buttons make. */
export async function decide(authorizeUrl: string, decision: 'allow' | 'deny') {
  const url = new URL(authorizeUrl)
  const page = await browserGet(authorizeUrl)
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.text}`)
  const res = await browserPost(`${url.origin}${url.pathname}`, {
    ...Object.fromEntries(url.searchParams),
    decision,
  })
  if (res.status !== 302 || !res.location) throw new Error(`consent decision: ${res.status} ${res.text}`)
  return res.location
}

/** A GA4 connection holding tokens the emulated Google issued, expiring (for Unigate) in `expiresInSec`. */
export async function connectWithTokens(s: AuthServer, g: GoogleSetup, expiresInSec: number) {
  const tokens = g.ga4.authority.issueTokens({ clientId: CLIENT_ID, scopes: [READONLY] })
  const connection = await s.services.connections.insertVerified(s.workspaceId, {
    integration: integrationOf(GA4)!,
    credentials: {
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      client_id: CLIENT_ID,
      api_url: g.ga4.url,
      expiry_date: new Date(Date.now() + expiresInSec * 1000).toISOString(),
    },
    settings: {},
    permissions: ['analytics_property_read', 'analytics_report_read'],
    environment: 'Production',
  })
  return { connection, tokens }
}
