export { addressProblem, checkAddresses, givesOwnAddress } from './addresses.js'
export { connectionView, type StoredConnection } from './connection.js'
export {
  ConnectionResolver,
  isUnhealthy,
  type ProviderClientSettings,
  providerClientFor,
  type ResolvedConnection,
} from './resolver.js'
export {
  type ConnectionInput,
  ConnectionService,
  CredentialsNotVerified,
  type CredentialsPinner,
  credentialsFrom,
  type VerifiedConnection,
} from './service.js'
export { type ConnectionListFilter, ConnectionStore } from './store.js'
export { RefreshingAuth, type TokenRefresher } from './tokens.js'
