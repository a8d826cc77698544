import { createEmulatorServer, listen, type RecordedRequest } from '../kit/index.js'
import { GOOGLE_AUTHORIZE_PATH, registerGoogleConsentRoutes } from './consent-routes.js'
import type { GoogleTokenAuthority } from './token-authority.js'

export interface GoogleAccountsEmulator {
  /** Stands for `https://accounts.google.com`. */
  readonly url: string
  /** The consent page's address: an OAuth app's `authorize_url`. */
  readonly authorizeUrl: string
  requests(): RecordedRequest[]
  close(): Promise<void>
}

/**
 * Google's consent screen on a host of its own, as accounts.google.com is: it hands out codes from the
 * same token authority as the API emulators, so the code it issues is exchanged at their `/token`.
 */
export async function startGoogleAccountsEmulator(options: {
  readonly authority: GoogleTokenAuthority
  readonly port?: number
  readonly host?: string
}): Promise<GoogleAccountsEmulator> {
  const { app, recorder } = createEmulatorServer({
    faultResponse: () => ({ body: 'Something went wrong. Try again later.' }),
  })
  registerGoogleConsentRoutes(app, options.authority)
  const url = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1')
  return {
    url,
    authorizeUrl: `${url}${GOOGLE_AUTHORIZE_PATH}`,
    requests: () => recorder.all(),
    close: () => app.close(),
  }
}
