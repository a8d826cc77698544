/**
 * A token_auth the emulator accepts by default: 32 hex characters, an md5 like Matomo's
 * (matomo-org/matomo@f09912cb:plugins/UsersManager/Model.php generateTokenAuth).
 */
export const DEFAULT_MATOMO_TOKEN = 'c0ffee00c0ffee00c0ffee00c0ffee00'
/** End of the seeded data's 30-day window; fixed so data never depends on the clock. */
export const DEFAULT_DATA_UNTIL = '2024-05-31T00:00:00Z'
/** The version the emulator follows (matomo-org/matomo@f09912cb:core/Version.php). */
export const MATOMO_VERSION = '5.2.0-b5'
/**
 * A visit ends after 30 minutes without an action
 * (matomo-org/matomo@f09912cb:config/global.ini.php visit_standard_length = 1800).
 */
export const VISIT_LENGTH_S = 30 * 60
/**
 * The visitor log returns at most this many actions per visit, the first ones, and says how many it left
 * out in `truncatedActionsCount` (matomo-org/matomo@f09912cb:config/global.ini.php
 * visitor_log_maximum_actions_per_visit = 500, plugins/Live/Visitor.php enrichVisitorArrayWithActions).
 */
export const VISITOR_LOG_MAX_ACTIONS = 500
