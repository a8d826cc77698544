export { DEFAULT_DATA_UNTIL, DEFAULT_FATHOM_API_KEY } from './constants.js'
export { type FathomEmulator, type FathomEmulatorOptions, startFathomEmulator } from './emulator.js'
