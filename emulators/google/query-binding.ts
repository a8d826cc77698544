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
 * The lowerCamelCase JSON name of a proto field name, as protoc makes it (each `_` dropped and the character
 * after it upper-cased): `page_size` is `pageSize`.
 */
const jsonNameOf = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/**
 * Binds the query to the method's request message as Google's HTTP transcoding does. A field outside the path
 * and body is a query parameter named by "the field path in the request message" (googleapis/googleapis@f8291d2:
 * google/api/http.proto, "Rules for HTTP mapping"): its proto name (`page_size`), and the transcoder finds a
 * field by its JSON name (`pageSize`) as well (grpc-ecosystem/grpc-httpjson-transcoding@a6e226f:
 * src/type_helper.cc FindField, test/type_helper_test.cc FindFieldCamelCaseTests). `bindable` are the JSON
 * names; a value given by the proto name is set on the query under the JSON name, which the routes read
 * (both names at once: not modelled, the JSON name's value is kept). Any other name that is not a system
 * parameter is refused: "Invalid JSON payload received. Unknown name "x": Cannot bind query parameter. Field
 * 'x' could not be found in request message."
 */
export function bindQuery(query: unknown, bindable: readonly string[]): void {
  const fields = (query ?? {}) as Record<string, unknown>
  for (const name of Object.keys(fields)) {
    if (SYSTEM_PARAMETERS.has(name) || bindable.includes(name)) continue
    const jsonName = jsonNameOf(name)
    if (jsonName !== name && bindable.includes(jsonName)) {
      if (!Object.hasOwn(fields, jsonName)) fields[jsonName] = fields[name]
      continue
    }
    throw invalidArgument(
      `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`,
    )
  }
}
