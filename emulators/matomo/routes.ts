import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { runApi } from './api/dispatch.js'
import { matomoError } from './errors.js'
import type { MatomoState } from './state.js'
import { type TrackingClient, track } from './tracking.js'

type Form = Record<string, string>

/** One value per parameter name; a repeated plain name keeps its last value, as PHP's $_GET/$_POST do. */
const flat = (value: unknown): Form => {
  const out: Form = {}
  if (!value || typeof value !== 'object') return out
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = Array.isArray(v) ? String(v[v.length - 1]) : String(v)
  }
  return out
}

export interface RouteOptions {
  /** Tokens restricted to POST requests (Matomo's recommended token setting) refuse a token in the URL. */
  readonly secureOnlyTokens: boolean
}

/**
 * The Reporting API (`/index.php` and `/`), GET or POST, parameters merged from query and form body;
 * `format` defaults to XML (matomo-org/matomo@f09912cb:core/API/Request.php process, format 'xml').
 */
export function registerApiRoutes(app: FastifyInstance, state: MatomoState, options: RouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = flat(request.query)
    const form = typeof request.body === 'object' ? flat(request.body) : {}
    const params = { ...query, ...form }
    // Without module=API the request is the web interface's, which asks to sign in (not modelled further).
    if (params.module !== 'API') {
      return reply
        .type('text/html; charset=utf-8')
        .send('<!DOCTYPE html><html><body>Matomo › Sign in</body></html>')
    }
    if ((params.format ?? 'xml').toLowerCase() !== 'json') {
      return reply
        .type('text/xml; charset=utf-8')
        .send(
          '<?xml version="1.0" encoding="utf-8" ?>\n<result>this emulator only answers format=JSON</result>',
        )
    }
    reply.type('application/json; charset=utf-8')
    // A failed token login is a NoAccessException: HTTP 401 with the JSON error, and a different
    // message when the token came in the URL (matomo-org/matomo@f09912cb:plugins/Login/Login.php
    // onFailedAPILogin; core/API/ResponseBuilder.php getResponseException sets the code).
    if (query.token_auth !== undefined && options.secureOnlyTokens) {
      return reply
        .code(401)
        .send(
          matomoError(
            'Unable to authenticate with the provided token. It is either invalid, expired or is required to be sent as a POST parameter.',
          ),
        )
    }
    // No token: the anonymous user has no view access anywhere; Access::throwNoAccessException keeps
    // the privilege message for a root API request (matomo-org/matomo@f09912cb:core/Access.php).
    if (!params.token_auth) {
      return reply
        .code(401)
        .send(
          matomoError("You can't access this resource as it requires view access for at least one website."),
        )
    }
    if (!state.isValidToken(params.token_auth)) {
      return reply
        .code(401)
        .send(matomoError('Unable to authenticate with the provided token. It is either invalid or expired.'))
    }
    const { status, body } = runApi(state, params)
    return reply.code(status).send(body)
  }
  for (const path of ['/index.php', '/']) app.route({ method: ['GET', 'POST'], url: path, handler })
}

/**
 * A tracking request is authenticated by a token with write or admin access to the site
 * (core/Tracker/Request.php authenticateTrackingApi); the emulator's restricted tokens view only.
 */
const trackingAuthorized = (state: MatomoState, token: string | undefined) =>
  state.isValidToken(token) && state.isSuperUser(token)

/**
 * The client as the tracker sees it without `cip`/`ua`/`lang`: the connection's address and the
 * User-Agent and Accept-Language headers (matomo-org/matomo@f09912cb:core/Tracker/Request.php
 * getIpString, getUserAgent, getBrowserLanguage).
 */
function clientOf(request: FastifyRequest, authorized: boolean): TrackingClient {
  const header = (name: string) => {
    const v = request.headers[name]
    return Array.isArray(v) ? (v[0] ?? '') : (v ?? '')
  }
  return {
    authorized,
    ip: request.ip,
    userAgent: header('user-agent'),
    language: header('accept-language'),
  }
}

/**
 * The Tracking API: one request as query/form, or a bulk JSON body `{requests:[…], token_auth}`
 * answered `{status, tracked, invalid, invalid_indices}`
 * (https://developer.matomo.org/api-reference/tracking-api "Bulk tracking";
 * matomo-org/matomo@f09912cb:core/Tracker/Handler.php, plugins/BulkTracking/Tracker/Response.php).
 */
export function registerTrackingRoutes(app: FastifyInstance, state: MatomoState): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body
    if (body && typeof body === 'object' && Array.isArray((body as { requests?: unknown }).requests)) {
      const { requests, token_auth: token } = body as { requests: unknown[]; token_auth?: string }
      // No up-front check (bulk_requests_require_authentication = 0): the token only decides which
      // requests may use privileged parameters, and a super user's also gets invalid_indices
      // (plugins/BulkTracking/Tracker/Requests.php, Handler.php isBulkTrackingRequestAuthenticated,
      // Response.php addInvalidIndicesIfAuthenticated).
      const authorized = trackingAuthorized(state, token)
      let tracked = 0
      const invalid: number[] = []
      const client = clientOf(request, authorized)
      requests.forEach((r, i) => {
        const query = new URLSearchParams(typeof r === 'string' ? r.replace(/^[^?]*\?/, '') : '')
        if (track(state, query, client).ok) tracked++
        else invalid.push(i)
      })
      return {
        status: 'success',
        tracked,
        invalid: invalid.length,
        ...(authorized ? { invalid_indices: invalid } : {}),
      }
    }
    const params = { ...flat(request.query), ...(typeof body === 'object' ? flat(body) : {}) }
    const result = track(
      state,
      new URLSearchParams(params),
      clientOf(request, trackingAuthorized(state, params.token_auth)),
    )
    if (!result.ok) return reply.code(400).type('text/plain').send(`Invalid request: ${result.reason}`)
    if (params.send_image === '0') return reply.code(204).send()
    return reply
      .type('image/gif')
      .send(Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'))
  }
  for (const path of ['/matomo.php', '/piwik.php']) app.route({ method: ['GET', 'POST'], url: path, handler })
}
