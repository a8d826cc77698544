export { DEFAULT_BAMBOOHR_API_KEY, DEFAULT_BAMBOOHR_DOMAIN } from './constants.js'
export { type BamboohrEmulator, type BamboohrEmulatorOptions, startBamboohrEmulator } from './emulator.js'
