export { type GoogleAccountsEmulator, startGoogleAccountsEmulator } from './accounts-emulator.js'
export { type BearerCheck, bearerOf, requireGrant } from './bearer.js'
export { GOOGLE_AUTHORIZE_PATH, registerGoogleConsentRoutes } from './consent-routes.js'
export { GoogleApiError, googleError, googleFaultResponse, invalidArgument } from './errors.js'
export { installGoogleErrorHandler } from './http.js'
export { type GoogleOAuthEmulator, startGoogleOAuthEmulator } from './oauth-emulator.js'
export {
  type AccessGrant,
  DEFAULT_CLIENT,
  GoogleTokenAuthority,
  type OAuthClient,
  type TokenSuccess,
} from './token-authority.js'
export { GOOGLE_CONTROL_PREFIX, registerGoogleTokenRoutes } from './token-routes.js'
