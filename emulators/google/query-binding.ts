import { invalidArgument } from './errors.js'

/**
 * Google's system parameters, which every REST API takes in the query besides its method's own fields
 * (https://cloud.google.com/apis/docs/system-parameters: `$alt`/`alt`, `$.xgafv`, `$callback`/`callback`,
 * `$ct`, `$fields`/`fields`, `$key`/`key`, `$prettyPrint`/`prettyPrint`, `$quotaUser`/`quotaUser`,
 * `$userProject`, `$outputDefaults`, `$unique`, and `access_token`).
 */
const SYSTEM_PARAMETERS = new Set([
  '$alt',
  'alt',
  '$.xgafv',
  '$callback',
  'callback',
  '$ct',
  '$fields',
  'fields',
  '$key',
  'key',
  '$prettyPrint',
  'prettyPrint',
  '$quotaUser',
  'quotaUser',
  '$userProject',
  '$outputDefaults',
  '$unique',
  'access_token',
])

/**
 * A query parameter that is neither a system parameter nor a field of the method's request message outside
 * the path and body (`bindable`) is refused, as Google's HTTP transcoding does: "Invalid JSON payload
 * received. Unknown name "x": Cannot bind query parameter. Field 'x' could not be found in request message."
 * (google/api/http.proto: fields not bound by the path or body "automatically become HTTP query parameters";
 * there are no others).
 */
export function refuseUnboundQuery(query: unknown, bindable: readonly string[]): void {
  for (const name of Object.keys((query ?? {}) as Record<string, unknown>)) {
    if (SYSTEM_PARAMETERS.has(name) || bindable.includes(name)) continue
    throw invalidArgument(
      `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`,
    )
  }
}
