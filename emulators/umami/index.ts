export { DEFAULT_DATA_UNTIL, DEFAULT_UMAMI_API_KEY } from './constants.js'
export { startUmamiEmulator, type UmamiEmulator, type UmamiEmulatorOptions } from './emulator.js'
