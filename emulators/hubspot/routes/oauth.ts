import { randomBytes, randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { formOf, installFormParser } from '../../kit/index.js'
import { ACCESS_TOKEN_TTL_S } from '../constants.js'
import type { HubspotState } from '../state.js'

/**
 * HubSpot's OAuth (https://developers.hubspot.com/docs/guides/apps/authentication/working-with-oauth;
 * HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:
 * PublicApiSpecs/Auth/Oauth/Rollouts/155908/v1/oauth.json). Token errors are HubSpot's own
 * `{status: "BAD_REFRESH_TOKEN", message, correlationId}`, not RFC 6749 `error` codes
 * (HGData/mk-node-hubspot#64; supaglue-labs/supaglue#1935: "missing or invalid refresh token").
 */
function refuse(reply: FastifyReply, status: string, message: string) {
  return reply.code(400).send({ status, message, correlationId: randomUUID(), requestId: randomUUID() })
}

export function registerOAuthRoutes(app: FastifyInstance, state: HubspotState): void {
  installFormParser(app)

  /**
   * The install page (app.hubspot.com/oauth/authorize): the user picks an account and grants the scopes.
   * Here consent is given at once, unless `decision=deny` is in the query; an unknown client or a
   * redirect URI the app did not register is an error page, never a redirect.
   */
  app.get('/oauth/authorize', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>
    const client = state.clients.get(q.client_id ?? '')
    if (!client?.redirectUris.includes(q.redirect_uri ?? '')) {
      return reply
        .code(400)
        .type('text/html')
        .send('<h1>Authorization failed</h1><p>Unknown client or redirect URI.</p>')
    }
    const back = new URL(q.redirect_uri as string)
    if (q.state !== undefined) back.searchParams.set('state', q.state)
    if (q.decision === 'deny') {
      back.searchParams.set('error', 'access_denied')
      return reply.redirect(back.toString(), 302)
    }
    const code = randomBytes(16).toString('hex')
    const scopes = (q.scope ?? '').split(/[\s+]+/).filter(Boolean)
    state.codes.set(code, { clientId: client.clientId, redirectUri: q.redirect_uri as string, scopes })
    back.searchParams.set('code', code)
    return reply.redirect(back.toString(), 302)
  })

  /** `POST /oauth/v1/token`, form-encoded, client id and secret in the body. Refresh tokens are not rotated. */
  app.post('/oauth/v1/token', async (request, reply) => {
    const form = formOf(request)
    const client = state.clients.get(form.client_id ?? '')
    if (!client) return refuse(reply, 'BAD_CLIENT_ID', 'missing or unknown client id')
    if (client.clientSecret !== form.client_secret)
      return refuse(reply, 'BAD_CLIENT_SECRET', 'missing or invalid client secret')
    if (form.grant_type === 'authorization_code') {
      const code = state.codes.get(form.code ?? '')
      state.codes.delete(form.code ?? '')
      if (!code || code.clientId !== client.clientId)
        return refuse(reply, 'BAD_AUTH_CODE', 'missing or unknown auth code')
      if (code.redirectUri !== form.redirect_uri)
        return refuse(reply, 'BAD_REDIRECT_URI', 'redirect_uri does not match')
      return { token_type: 'bearer', ...state.issueTokens(client.clientId, code.scopes, ACCESS_TOKEN_TTL_S) }
    }
    if (form.grant_type === 'refresh_token') {
      const refresh = form.refresh_token ?? ''
      const grant = state.refreshTokens.get(refresh)
      if (!grant || grant.clientId !== client.clientId) {
        return refuse(reply, 'BAD_REFRESH_TOKEN', 'missing or invalid refresh token')
      }
      const access = `CN${randomBytes(24).toString('base64url')}`
      state.accessTokens.set(access, {
        clientId: client.clientId,
        scopes: grant.scopes,
        expiresAt: Date.now() + ACCESS_TOKEN_TTL_S * 1000,
      })
      return {
        token_type: 'bearer',
        refresh_token: refresh,
        access_token: access,
        expires_in: ACCESS_TOKEN_TTL_S,
      }
    }
    return refuse(reply, 'BAD_GRANT_TYPE', 'missing or unknown grant type')
  })

  /** Deleting a refresh token uninstalls the grant: it no longer refreshes (oauth.json, DELETE refresh-tokens). */
  app.delete('/oauth/v1/refresh-tokens/:token', async (request, reply) => {
    const token = (request.params as { token: string }).token
    if (!state.refreshTokens.delete(token))
      return reply
        .code(404)
        .send({ status: 'error', message: 'refresh token not found', correlationId: randomUUID() })
    return reply.code(204).send()
  })
}
