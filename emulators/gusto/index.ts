export { DEFAULT_GUSTO_CLIENT, GUSTO_API_VERSION, READ_SCOPES } from './constants.js'
export { type GustoEmulator, type GustoEmulatorOptions, startGustoEmulator } from './emulator.js'
export type { GustoOAuth, GustoTokenBody } from './oauth.js'
