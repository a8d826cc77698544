export { DEFAULT_PIPEDRIVE_TOKEN } from './constants.js'
export { type PipedriveEmulator, type PipedriveEmulatorOptions, startPipedriveEmulator } from './emulator.js'
