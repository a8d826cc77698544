export {
  DEFAULT_DATA_UNTIL,
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  SCOPES,
} from './constants.js'
export {
  type GreenhouseEmulator,
  type GreenhouseEmulatorOptions,
  startGreenhouseEmulator,
} from './emulator.js'
