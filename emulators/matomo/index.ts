export { DEFAULT_DATA_UNTIL, DEFAULT_MATOMO_TOKEN, MATOMO_VERSION } from './constants.js'
export { type MatomoEmulator, type MatomoEmulatorOptions, startMatomoEmulator } from './emulator.js'
export type { MatomoActionRecord, MatomoSiteRecord, MatomoState, MatomoVisitRecord } from './state.js'
