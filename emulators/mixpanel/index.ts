export {
  DEFAULT_DATA_UNTIL,
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  ENGAGE_PAGE_SIZE,
  EXPORT_MAX_LIMIT,
} from './constants.js'
export { type MixpanelEmulator, type MixpanelEmulatorOptions, startMixpanelEmulator } from './emulator.js'
export type { MixpanelEventRecord, MixpanelProfileRecord, MixpanelState } from './state.js'
