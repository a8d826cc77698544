export { DEFAULT_DATA_UNTIL, DEFAULT_LEVER_API_KEY } from './constants.js'
export { type LeverEmulator, type LeverEmulatorOptions, startLeverEmulator } from './emulator.js'
