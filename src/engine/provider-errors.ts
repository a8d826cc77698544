import {
  ApiError,
  busyAnswer,
  ConnectionBusyError,
  ProviderAnswerTooLargeError,
  ProviderError,
  ProviderTimeoutError,
  ProviderUnreachableError,
} from '../errors.js'
import type { ConnectionSettings, IntegrationDefinition } from '../integrations/types.js'
import { isTimeZone, secondsUntilMidnightIn } from '../integrations/zones.js'

/**
 * The one guard between the engine and a connector: anything a connector or its mappers throw that is
 * neither our own ApiError nor a provider failure (a TypeError on a body of an unexpected shape, say)
 * means the provider answered something the connector could not read. That is the provider's answer
 * being bad for us, a 502 naming the integration and the operation, never a 500 or a stack trace; the
 * original error stays attached as `cause` for the server log.
 */
export function apiErrorFromConnector(
  err: unknown,
  integration: IntegrationDefinition,
  what: string,
  settings?: ConnectionSettings,
): ApiError {
  if (err instanceof ApiError) return err
  return (
    apiErrorFromProvider(err, integration, what, settings) ??
    new ApiError(
      502,
      `${integration.name} (${integration.type}) answered ${what} with a response of an unexpected shape, ` +
        'which Unigate could not read; the server log has the details',
      {},
      { integration_type: integration.type },
      { cause: err },
    )
  )
}

/**
 * Maps what went wrong at a provider onto the API's answer (DESIGN.md section 6). The provider's own
 * message is kept (it says what to fix); the connection's credentials never are.
 */
export function apiErrorFromProvider(
  err: unknown,
  integration: IntegrationDefinition,
  what: string,
  settings?: ConnectionSettings,
): ApiError | undefined {
  const name = integration.name
  if (err instanceof ProviderTimeoutError)
    return new ApiError(504, `${name} did not answer ${what} within ${err.timeoutMs} ms`)
  if (err instanceof ConnectionBusyError) return busyAnswer(err)
  if (err instanceof ProviderAnswerTooLargeError)
    return new ApiError(502, `${name} answered ${what}, but ${err.reason}`)
  if (err instanceof ProviderUnreachableError)
    return new ApiError(502, `${name} could not be reached for ${what} (${err.reason})`)
  if (!(err instanceof ProviderError)) return undefined
  const detail = `${name} answered ${err.status}: ${err.providerMessage}`
  switch (err.status) {
    case 401:
      return new ApiError(
        403,
        `${detail}. The connection's credentials were rejected; re-authorize the connection.`,
        {},
        {
          provider_status: 401,
        },
      )
    case 403:
      return new ApiError(
        403,
        `${detail}. The credentials lack access for ${what}.`,
        {},
        { provider_status: 403 },
      )
    case 404:
      return new ApiError(404, `${what}: not found at ${name}`, {}, { provider_status: 404 })
    case 400:
    case 422:
      return new ApiError(
        400,
        `${name} rejected ${what}: ${err.providerMessage}`,
        {},
        { provider_status: err.status },
      )
    case 429:
      if (err.dailyQuotaSpent) return dailyQuotaSpent(err, integration, settings)
      return new ApiError(
        429,
        `${name} is rate limiting this connection; retry later`,
        err.retryAfterSeconds !== undefined ? { 'retry-after': String(err.retryAfterSeconds) } : {},
        { provider_status: 429 },
      )
    default:
      return new ApiError(502, detail, {}, { provider_status: err.status })
  }
}

/**
 * A spent daily quota: retrying within seconds cannot help, so the answer says so and when it resets (the
 * next midnight in the provider's quota time zone), with `retry-after` until then. Without the time zone
 * (a connection verified before it was kept, or a provider that does not name it: `dailyQuotaWords`), the
 * message still names the daily quota and when it resets as the provider words it, and no wait is given.
 */
function dailyQuotaSpent(
  err: ProviderError,
  integration: IntegrationDefinition,
  settings: ConnectionSettings | undefined,
  now: number = Date.now(),
): ApiError {
  const zone = settings ? integration.dailyQuotaTimeZone?.(settings) : undefined
  const known = zone !== undefined && isTimeZone(zone)
  const seconds = known ? secondsUntilMidnightIn(zone, now) : undefined
  const words = integration.dailyQuotaWords
  const when =
    seconds !== undefined
      ? `it resets at midnight in the account's time zone (${zone}), ${new Date(now + seconds * 1000).toISOString()}`
      : (words?.resets ?? "it resets at midnight in the account's time zone")
  const quota = words?.quota ?? `${integration.name}'s daily API limit for this account`
  return new ApiError(
    429,
    `${quota} is spent (${integration.name} answered 429: ${err.providerMessage}); ${when}. Retrying sooner will not help.`,
    seconds !== undefined ? { 'retry-after': String(seconds) } : {},
    { provider_status: 429 },
  )
}
