export { DEFAULT_DATA_UNTIL, DEFAULT_PLAUSIBLE_API_KEY } from './constants.js'
export { type PlausibleEmulator, type PlausibleEmulatorOptions, startPlausibleEmulator } from './emulator.js'
