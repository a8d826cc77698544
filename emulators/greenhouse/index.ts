export { DEFAULT_DATA_UNTIL, DEFAULT_GREENHOUSE_API_KEY } from './constants.js'
export {
  type GreenhouseEmulator,
  type GreenhouseEmulatorOptions,
  startGreenhouseEmulator,
} from './emulator.js'
