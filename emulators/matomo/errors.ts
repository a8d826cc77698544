/**
 * Matomo reports API failures as `{"result":"error","message":…}`. Most exceptions keep HTTP 200, so
 * clients must read `result` to notice; an exception implementing HttpCodeException (NoAccessException:
 * a bad token, or no access to the site) sets its code, 401, on the root request only, never inside
 * API.getBulkRequest (matomo-org/matomo@f09912cb:core/API/ResponseBuilder.php getResponseException,
 * core/API/Request.php process disableSendHeader for nested requests, core/NoAccessException.php).
 */
export class MatomoApiError extends Error {
  /** The HTTP status Matomo sends when this error answers the root request. */
  readonly status: number = 200
}

/** `NoAccessException`: HTTP 401 (matomo-org/matomo@f09912cb:core/NoAccessException.php). */
export class MatomoNoAccessError extends MatomoApiError {
  override readonly status = 401
}

export const matomoError = (message: string) => ({ result: 'error', message })

/** A missing method parameter (matomo-org/matomo@f09912cb:core/API/Proxy.php, lang/en.json General_PleaseSpecifyValue). */
export const requireParam = (params: Readonly<Record<string, string>>, name: string): string => {
  const v = params[name]
  if (v === undefined || v === '') throw new MatomoApiError(`Please specify a value for '${name}'.`)
  return v
}
