import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { runApi } from './api/dispatch.js'
import { matomoError } from './errors.js'
import type { MatomoState } from './state.js'
import { track } from './tracking.js'

type Form = Record<string, string>

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

/** The Reporting API (`/index.php` and `/`), GET or POST, parameters merged from query and form body. */
export function registerApiRoutes(app: FastifyInstance, state: MatomoState, options: RouteOptions): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const query = flat(request.query)
    const form = typeof request.body === 'object' ? flat(request.body) : {}
    const params = { ...query, ...form }
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
    if (query.token_auth !== undefined && options.secureOnlyTokens) {
      return matomoError(
        'This token can only be used in a secure POST request; send token_auth in the POST body.',
      )
    }
    if (!params.token_auth) return matomoError('You must be logged in to access this functionality.')
    if (!state.isValidToken(params.token_auth)) {
      return matomoError('Unable to authenticate with the provided token. It is either invalid or expired.')
    }
    return runApi(state, params)
  }
  for (const path of ['/index.php', '/']) app.route({ method: ['GET', 'POST'], url: path, handler })
}

/** The Tracking API: one request as query/form, or a bulk JSON body `{requests:[…], token_auth}`. */
export function registerTrackingRoutes(app: FastifyInstance, state: MatomoState): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body
    if (body && typeof body === 'object' && Array.isArray((body as { requests?: unknown }).requests)) {
      const { requests, token_auth: token } = body as { requests: unknown[]; token_auth?: string }
      if (token !== undefined && !state.isValidToken(token)) {
        return reply
          .code(400)
          .send({ status: 'error', message: 'token_auth is invalid.', tracked: 0, invalid: requests.length })
      }
      let tracked = 0
      const invalid: number[] = []
      requests.forEach((r, i) => {
        const query = new URLSearchParams(typeof r === 'string' ? r.replace(/^[^?]*\?/, '') : '')
        if (track(state, query, token !== undefined).ok) tracked++
        else invalid.push(i)
      })
      return { status: 'success', tracked, invalid: invalid.length, invalid_indices: invalid }
    }
    const params = { ...flat(request.query), ...(typeof body === 'object' ? flat(body) : {}) }
    const result = track(state, new URLSearchParams(params), state.isValidToken(params.token_auth))
    if (!result.ok) return reply.code(400).type('text/plain').send(`Invalid request: ${result.reason}`)
    if (params.send_image === '0') return reply.code(204).send()
    return reply
      .type('image/gif')
      .send(Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'))
  }
  for (const path of ['/matomo.php', '/piwik.php']) app.route({ method: ['GET', 'POST'], url: path, handler })
}
