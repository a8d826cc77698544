import { badRequest, ProviderError } from '../../errors.js'
import { providerMessageOf } from '../http-client.js'
import type { HandlerContext } from '../types.js'

/** A parameter value as Matomo's form encoding takes it; arrays become `name[0]=…&name[1]=…`. */
export type MatomoParam = string | number | readonly string[] | undefined
export type MatomoParams = Readonly<Record<string, MatomoParam>>

/** Form-encodes Matomo parameters, PHP style (`urls[0]=a&urls[1]=b`). */
export function encodeMatomoParams(params: MatomoParams): string {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) form.append(`${name}[${i}]`, v)
    } else form.append(name, String(value))
  }
  return form.toString()
}

/**
 * Matomo answers most failures with HTTP 200 and `{"result":"error","message":…}`; the message is the
 * only signal, so it decides the status the rest of Unigate sees.
 */
export function statusOfMatomoError(message: string): number {
  if (/unable to authenticate|token_auth.*(invalid|expired)|not logged in/i.test(message)) return 401
  if (/unexpected website was found|does not exist|not found|doesn't exist/i.test(message)) return 404
  if (/you can't access this resource|requires '\w+' access|super ?user access/i.test(message)) return 403
  return 400
}

/**
 * The error a Matomo answer reports (HTTP 200 with `result: error`), its message read by `messageOf`: the
 * connection's client's, which cuts the connection's secrets out of it, as from any provider message.
 */
export function matomoErrorOf(
  body: unknown,
  messageOf: (body: unknown) => string = providerMessageOf,
): ProviderError | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined
  const b = body as Record<string, unknown>
  if (b.result !== 'error') return undefined
  const message =
    typeof b.message === 'string'
      ? messageOf({ message: b.message })
      : 'Matomo reported an error without a message'
  return new ProviderError(statusOfMatomoError(message), message)
}

/** Read-only Reporting API methods may be retried; mutations may not (a repeated addSite adds two sites). */
const WRITE_METHOD = /\.(add|update|delete|set|remove)/

/**
 * Calls one Reporting API method. The token travels in the POST body, never in the URL (Matomo's
 * recommendation: URLs end up in access logs, and tokens may be restricted to POST requests).
 */
export async function callMatomo<T>(
  ctx: Pick<HandlerContext, 'client' | 'credentials'>,
  method: string,
  params: MatomoParams = {},
): Promise<T> {
  const body = encodeMatomoParams({ ...params, token_auth: ctx.credentials.token_auth })
  let res: Awaited<ReturnType<typeof ctx.client.send>>
  try {
    res = await ctx.client.send({
      method: 'POST',
      path: 'index.php',
      query: { module: 'API', method, format: 'JSON' },
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      idempotent: !WRITE_METHOD.test(method),
    })
  } catch (err) {
    // Matomo answers every NoAccessException with HTTP 401 (core/NoAccessException.php): a token it
    // rejects, but also a good token without access to this site. Only the first means re-authorize.
    if (err instanceof ProviderError && err.status === 401) {
      const status = statusOfMatomoError(err.providerMessage)
      throw new ProviderError(status, err.providerMessage, undefined, false, err.messageIsBody)
    }
    throw err
  }
  const error = matomoErrorOf(res.body, (b) => ctx.client.messageOf(b))
  if (error) throw error
  return res.body as T
}

/** What Unigate chooses on every Matomo call: refused in `raw` (the definition), and in a bulk sub-request's parameters. */
export const MATOMO_FIXED_PARAMS = ['module', 'method', 'format'] as const

/**
 * A bulk call: several methods in one round trip (`API.getBulkRequest`), answered in order. `outer` goes
 * on the HTTP request itself, for what Matomo reads once per request rather than per method, such as
 * `language` (plugins/LanguagesManager/LanguagesManager.php initLanguage runs on Request.dispatch).
 */
export async function callMatomoBulk(
  ctx: Pick<HandlerContext, 'client' | 'credentials'>,
  calls: ReadonlyArray<{ method: string; params: MatomoParams }>,
  outer: MatomoParams = {},
): Promise<unknown[]> {
  const urls = calls.map(({ method, params }) => {
    // In a sub-request the parameters are all there is: a `raw` `method` would run any method the token
    // allows (SitesManager.deleteSite under a read grant), so these are the connector's alone.
    for (const name of MATOMO_FIXED_PARAMS) {
      if (name in params) {
        throw badRequest(
          `raw: '${name}' is chosen by Unigate for each Matomo method it calls; leave it out of raw`,
        )
      }
    }
    return encodeMatomoParams({ ...params, module: 'API', method, format: 'JSON' })
  })
  const results = await callMatomo<unknown>(ctx, 'API.getBulkRequest', { ...outer, urls })
  if (!Array.isArray(results) || results.length !== calls.length) {
    throw new ProviderError(502, 'Matomo answered a bulk request with an unexpected shape')
  }
  for (const result of results) {
    const error = matomoErrorOf(result, (b) => ctx.client.messageOf(b))
    if (error) throw error
  }
  return results
}
