import { MATOMO_VERSION } from '../constants.js'
import { MatomoApiError, matomoError } from '../errors.js'
import type { MatomoState } from '../state.js'
import { LIVE_METHODS } from './live.js'
import type { MethodHandler, Params } from './params.js'
import { REPORT_METHODS } from './reports.js'
import { SITES_METHODS } from './sites.js'

const METHODS: Readonly<Record<string, MethodHandler>> = {
  'API.getMatomoVersion': () => ({ value: MATOMO_VERSION }),
  ...SITES_METHODS,
  ...LIVE_METHODS,
  ...REPORT_METHODS,
}

/** An unknown method, in Matomo's words (matomo-org/matomo@f09912cb:core/API/Proxy.php checkMethodExists). */
function callMethod(state: MatomoState, params: Params): unknown {
  const method = params.method ?? ''
  const handler = METHODS[method]
  if (!handler) {
    const [plugin = '', name = ''] = method.split('.')
    throw new MatomoApiError(
      `The method '${name}' does not exist or is not available in the module '\\Piwik\\Plugins\\${plugin}\\API'.`,
    )
  }
  return handler(state, params)
}

/**
 * `API.getBulkRequest`: each `urls[i]` is a URL-encoded query string run with the outer token; a failing
 * entry answers its own error object in place (no HTTP status: nested requests send no header), the
 * others still run (matomo-org/matomo@f09912cb:plugins/API/API.php getBulkRequest,
 * core/API/Request.php process; plugins/LanguagesManager/LanguagesManager.php for the language).
 */
function bulk(state: MatomoState, params: Params): unknown[] {
  const urls = Object.keys(params)
    .filter((k) => /^urls\[\d+\]$/.test(k))
    .sort((a, b) => Number(a.slice(5, -1)) - Number(b.slice(5, -1)))
  return urls.map((k) => {
    const { language: _ignored, ...inner } = Object.fromEntries(new URLSearchParams(params[k] as string))
    // The language is set once per HTTP request, from its own parameters (LanguagesManager initLanguage
    // on Request.dispatch); a nested request's `language` does not change it.
    const language: Params = params.language === undefined ? {} : { language: params.language }
    try {
      if (inner.method === 'API.getBulkRequest')
        throw new MatomoApiError('API.getBulkRequest cannot be nested.')
      return callMethod(state, { ...inner, ...language, token_auth: params.token_auth ?? '' })
    } catch (err) {
      if (err instanceof MatomoApiError) return matomoError(err.message)
      throw err
    }
  })
}

/**
 * Runs one Reporting API request whose token was already checked. Errors answer HTTP 200 except a
 * NoAccessException (401), as MatomoApiError.status says (see errors.ts for the sources).
 */
export function runApi(state: MatomoState, params: Params): { status: number; body: unknown } {
  try {
    const body = params.method === 'API.getBulkRequest' ? bulk(state, params) : callMethod(state, params)
    return { status: 200, body }
  } catch (err) {
    if (err instanceof MatomoApiError) return { status: err.status, body: matomoError(err.message) }
    throw err
  }
}
