export { DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_DATA_UNTIL, DEFAULT_SECRET_KEY } from './constants.js'
export { type AmplitudeEmulator, type AmplitudeEmulatorOptions, startAmplitudeEmulator } from './emulator.js'
export type { AmplitudeEventRecord, AmplitudeState, AmplitudeUser } from './state.js'
export { writeZip } from './zip-writer.js'
