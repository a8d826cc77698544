import { createEmulatorServer, type Fault, listen, type RecordedRequest } from '../kit/index.js'
import { installGoogleErrorHandler } from './http.js'
import { GoogleTokenAuthority, type TokenAuthorityOptions } from './token-authority.js'
import { registerGoogleTokenRoutes } from './token-routes.js'

export interface GoogleOAuthEmulatorOptions extends TokenAuthorityOptions {
  readonly port?: number
  readonly host?: string
  /** Share the authority with the API emulators, so the tokens this server issues work there. */
  readonly authority?: GoogleTokenAuthority
}

export interface GoogleOAuthEmulator {
  /** Stands for `https://oauth2.googleapis.com`: `POST /token`, `POST /revoke`. */
  readonly url: string
  readonly authority: GoogleTokenAuthority
  requests(): RecordedRequest[]
  fault(fault: Fault): void
  close(): Promise<void>
}

/** Google's token endpoint on its own, as `oauth2.googleapis.com` is a host of its own. */
export async function startGoogleOAuthEmulator(
  options: GoogleOAuthEmulatorOptions = {},
): Promise<GoogleOAuthEmulator> {
  const authority = options.authority ?? new GoogleTokenAuthority(options)
  // The token endpoint's own errors are OAuth bodies; an injected fault gets the same shape.
  const { app, recorder, faults } = createEmulatorServer({
    faultResponse: (status) => ({
      body: {
        error: status === 429 ? 'rate_limit_exceeded' : 'internal_failure',
        error_description: 'Emulated failure.',
      },
    }),
  })
  installGoogleErrorHandler(app)
  registerGoogleTokenRoutes(app, authority)
  const url = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1')
  return {
    url,
    authority,
    requests: () => recorder.all(),
    fault: (fault) => faults.add(fault),
    close: () => app.close(),
  }
}
