export {
  DEFAULT_DATA_UNTIL,
  DEFAULT_UMAMI_API_KEY,
  DEFAULT_UMAMI_LOGIN_TOKEN,
  DEFAULT_UMAMI_USER,
} from './constants.js'
export { startUmamiEmulator, type UmamiEmulator, type UmamiEmulatorOptions } from './emulator.js'
