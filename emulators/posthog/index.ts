export {
  DEFAULT_DATA_UNTIL,
  DEFAULT_PERSONAL_API_KEY,
  DEFAULT_PROJECT_API_KEY,
  HOGQL_DEFAULT_LIMIT,
  HOGQL_MAX_LIMIT,
} from './constants.js'
export {
  type PosthogEmulator,
  type PosthogEmulatorOptions,
  type PosthogEmulatorSize,
  startPosthogEmulator,
} from './emulator.js'
export { executeHogQL, type HogQLResult } from './hogql/execute.js'
export type { QueryLimitOptions, QueryStats } from './query-limits.js'
export type { PosthogState, ProjectData } from './state.js'
