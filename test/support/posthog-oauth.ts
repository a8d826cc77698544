import { type PosthogEmulator, startPosthogEmulator } from '../../emulators/posthog/index.js'
import { type AuthServer, browserGet, browserPost } from './auth-server.js'

export const PH_CLIENT_ID = 'unigate-auth-test-posthog'
export const PH_CLIENT_SECRET = 'posthog-auth-test-secret'

export async function startPosthogForOAuth(): Promise<PosthogEmulator> {
  return startPosthogEmulator({ seed: 7, size: { events: 300, sessions: 40, persons: 15 } })
}

/** Registers Unigate's callback with the emulated PostHog and the OAuth app with the workspace. */
export async function configurePosthogApp(s: AuthServer, ph: PosthogEmulator): Promise<void> {
  ph.oauth.registerClient({
    clientId: PH_CLIENT_ID,
    clientSecret: PH_CLIENT_SECRET,
    redirectUris: [`${s.url}/unified/integration/oauth/callback`],
    name: 'Unigate auth test',
  })
  const res = await s.api('PUT', '/unified/workspace/oauth_app/posthog', {
    client_id: PH_CLIENT_ID,
    client_secret: PH_CLIENT_SECRET,
    authorize_url: `${ph.url}/oauth/authorize/`,
    token_url: `${ph.url}/oauth/token/`,
    revoke_url: `${ph.url}/oauth/revoke/`,
    api_url: ph.url,
  })
  if (res.status !== 200) throw new Error(`oauth app: ${res.status} ${JSON.stringify(res.body)}`)
}

/** What the user does on PostHog's consent page: the form post its buttons make; answers the redirect. */
export async function decideAtPosthog(authorizeUrl: string, decision: 'allow' | 'deny'): Promise<string> {
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
