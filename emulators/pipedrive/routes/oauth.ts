import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { formOf, installFormParser } from '../../kit/index.js'
import type { PipedriveState } from '../state.js'

/** Access tokens last an hour (`expires_in` 3599 in the example answer of https://pipedrive.readme.io/docs/marketplace-oauth-authorization). */
const ACCESS_TTL_S = 3599
/** An authorization code lasts 5 minutes (https://pipedrive.readme.io/docs/marketplace-oauth-authorization, step 4). */
const CODE_TTL_MS = 5 * 60_000

/**
 * Pipedrive's OAuth server (https://pipedrive.readme.io/docs/marketplace-oauth-authorization): the token
 * endpoint takes the client as HTTP Basic ("Authorization: Basic <base64(client_id:client_secret)>"; "could
 * also be done by providing values for the client_id and the client_secret in the request body, but it's not
 * recommended"), a body that "must be application/x-www-form-urlencoded", and answers `api_domain` with the
 * tokens. Its refusals are 400s, a bad client included ("Invalid client: client is invalid", "Invalid request:
 * content must be application/x-www-form-urlencoded": https://pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes;
 * both pages read in the copies at fav83/whatsapp2pipe@aa6f18b3c4460d2248c1e9132dcd833d19a8299b:
 * Docs/External/Pipedrive/docs/). The body's shape is not documented: here `{success: false, error, message}`
 * with an RFC 6749 `error` code.
 */
function basicClient(request: FastifyRequest): { id: string; secret: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')
  if (!m?.[1]) return undefined
  const decoded = Buffer.from(m[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  }
}

const refuse = (reply: FastifyReply, status: number, error: string, message: string) =>
  reply.code(status).send({ success: false, error, message })

export function registerOAuthRoutes(
  app: FastifyInstance,
  state: PipedriveState,
  apiDomain: () => string,
): void {
  installFormParser(app)

  /** The consent page: granted at once here, or denied with `decision=deny`; no scope parameter (https://pipedrive.readme.io/docs/marketplace-oauth-authorization, step 1). */
  app.get('/oauth/authorize', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>
    const client = state.clients.get(q.client_id ?? '')
    if (!client?.redirectUris.includes(q.redirect_uri ?? '')) {
      return reply.code(400).type('text/html').send('<h1>Invalid client or redirect URI</h1>')
    }
    const back = new URL(q.redirect_uri as string)
    if (q.state !== undefined) back.searchParams.set('state', q.state)
    if (q.decision === 'deny') back.searchParams.set('error', 'user_denied')
    else {
      const code = randomBytes(12).toString('hex')
      state.codes.set(code, {
        clientId: q.client_id as string,
        redirectUri: q.redirect_uri as string,
        issuedAt: Date.now(),
      })
      back.searchParams.set('code', code)
    }
    return reply.redirect(back.toString(), 302)
  })

  app.post('/oauth/token', async (request, reply) => {
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      return refuse(
        reply,
        400,
        'invalid_request',
        'Invalid request: content must be application/x-www-form-urlencoded',
      )
    }
    // The form body only: a parameter in the query string is not read.
    const form = formOf({ body: request.body } as FastifyRequest)
    const client =
      basicClient(request) ??
      (form.client_id !== undefined && form.client_secret !== undefined
        ? { id: form.client_id, secret: form.client_secret }
        : undefined)
    if (!client) {
      return refuse(reply, 400, 'invalid_client', 'Invalid client: cannot retrieve client credentials')
    }
    const known = state.clients.get(client.id)
    if (!known || known.clientSecret !== client.secret) {
      return refuse(reply, 400, 'invalid_client', 'Invalid client: client is invalid')
    }
    const answer = (tokens: { access_token: string; refresh_token: string; expires_in: number }) => ({
      ...tokens,
      token_type: 'Bearer',
      // "List of scopes to which users have agreed to grant access within this access_token" (step 4), comma
      // separated as in the example of https://pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes.
      scope: (state.clients.get(client.id)?.scopes ?? []).join(','),
      api_domain: apiDomain(),
    })
    if (form.grant_type === 'authorization_code') {
      const code = state.codes.get(form.code ?? '')
      state.codes.delete(form.code ?? '')
      if (!code || code.clientId !== client.id || code.redirectUri !== form.redirect_uri) {
        return refuse(reply, 400, 'invalid_grant', 'Invalid authorization code or redirect URI')
      }
      // "Note that the authorization_code expires in 5 minutes" (marketplace-oauth-authorization, step 4):
      // "Invalid grant: authorization_code has expired" (marketplace-oauth-and-api-proxy-status-codes).
      if (Date.now() - code.issuedAt > CODE_TTL_MS) {
        return refuse(reply, 400, 'invalid_grant', 'Invalid grant: authorization_code has expired')
      }
      return answer(state.issueTokens(client.id, ACCESS_TTL_S))
    }
    if (form.grant_type === 'refresh_token') {
      const refresh = form.refresh_token ?? ''
      if (state.refreshTokens.get(refresh) !== client.id) {
        return refuse(reply, 400, 'invalid_grant', 'Invalid refresh token')
      }
      const access = state.issueAccessToken(client.id, ACCESS_TTL_S)
      return answer({ access_token: access, refresh_token: refresh, expires_in: ACCESS_TTL_S })
    }
    return refuse(reply, 400, 'unsupported_grant_type', 'Unsupported grant type')
  })
}
