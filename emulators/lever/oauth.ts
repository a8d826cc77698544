import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { formOf, installFormParser, withBasicClient } from '../kit/index.js'
import { LEVER_OAUTH_SCOPES } from './scopes.js'
import type { LeverState } from './state.js'

/**
 * Lever's OAuth server (auth.lever.co), after https://hire.lever.co/developer/documentation#authentication
 * ("OAuth"): an authorization code flow whose authorize request must name the API as `audience`
 * (`https://api.lever.co/v1/`), scopes from Lever's list only (`LEVER_OAUTH_SCOPES`, #scopes; `offline_access`
 * for a refresh token), access tokens that last an hour, and refresh tokens that are replaced on every refresh.
 * Errors follow RFC 6749 (`{error, error_description}`); a dead grant is `invalid_grant` with 403, as Lever's
 * Auth0-hosted token endpoint answers it.
 * A scope not on the list: Lever says only that when "an error occurs, Lever will redirect the user to the
 * redirect_uri" with `state`, `error` and `error_description` (#authentication, Step 2), not which error an
 * unknown scope is. The emulator's reading is RFC 6749 section 4.1.2.1: `error=invalid_scope` ("The requested
 * scope is invalid, unknown, or malformed"), with an `error_description` (ours) naming the scopes refused.
 */
export const LEVER_AUDIENCE = 'https://api.lever.co/v1/'
const ACCESS_TOKEN_SECONDS = 3600

interface Client {
  readonly secret: string
  readonly redirectUris: readonly string[]
}

interface Code {
  readonly clientId: string
  readonly redirectUri: string
  readonly scopes: readonly string[]
}

export class LeverOAuth {
  readonly clients = new Map<string, Client>()
  readonly codes = new Map<string, Code>()
  readonly refreshTokens = new Map<string, { clientId: string; scopes: readonly string[] }>()
  /** Every token request received, for tests to count refreshes. */
  readonly tokenRequests: string[] = []

  constructor(private readonly state: LeverState) {}

  registerClient(clientId: string, secret: string, redirectUris: readonly string[]): void {
    this.clients.set(clientId, { secret, redirectUris })
  }

  /** Issues an access token the API accepts, and a refresh token when `offline_access` was granted. */
  issue(clientId: string, scopes: readonly string[]): Record<string, unknown> {
    const access = `lever_at_${randomBytes(16).toString('hex')}`
    this.state.accessTokens.add(access)
    this.state.tokenScopes.set(access, scopes)
    const refresh = scopes.includes('offline_access')
      ? `lever_rt_${randomBytes(16).toString('hex')}`
      : undefined
    if (refresh) this.refreshTokens.set(refresh, { clientId, scopes })
    return {
      access_token: access,
      ...(refresh ? { refresh_token: refresh } : {}),
      token_type: 'Bearer',
      scope: scopes.join(' '),
      expires_in: ACCESS_TOKEN_SECONDS,
    }
  }

  /** Ends every access token issued so far, as an hour passing would. */
  expireAccessTokens(): void {
    for (const token of [...this.state.accessTokens])
      if (token.startsWith('lever_at_')) {
        this.state.accessTokens.delete(token)
        this.state.tokenScopes.delete(token)
      }
  }
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function back(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
  return url.toString()
}

const tokenError = (reply: FastifyReply, status: number, error: string, description: string) =>
  reply.code(status).send({ error, error_description: description })

/** `GET /authorize` (consent page, the user taken as signed in), `POST /authorize` (the decision), `POST /oauth/token`. */
export function registerOAuthRoutes(app: FastifyInstance, oauth: LeverOAuth): void {
  installFormParser(app)
  const checked = (p: Record<string, string | undefined>) => {
    const client = p.client_id ? oauth.clients.get(p.client_id) : undefined
    if (!client || !p.redirect_uri || !client.redirectUris.includes(p.redirect_uri))
      return { page: 'Unknown client or redirect_uri' }
    if (p.response_type !== 'code') return { error: 'unsupported_response_type' }
    if (p.audience !== LEVER_AUDIENCE)
      return { error: 'invalid_request', description: `audience must be ${LEVER_AUDIENCE}` }
    const scopes = (p.scope ?? '').split(' ').filter(Boolean)
    const unknown = scopes.filter((s) => !LEVER_OAUTH_SCOPES.has(s))
    if (unknown.length > 0)
      return {
        error: 'invalid_scope',
        description: `Unknown scope: ${unknown.join(' ')} (see https://hire.lever.co/developer/documentation#scopes)`,
      }
    return { scopes }
  }
  app.get('/authorize', async (request, reply) => {
    const p = formOf(request)
    const c = checked(p)
    if ('page' in c)
      return reply
        .code(400)
        .type('text/html')
        .send(`<h1>Error</h1><p>${esc(c.page as string)}</p>`)
    if ('error' in c)
      return reply.redirect(
        back(p.redirect_uri as string, { error: c.error, error_description: c.description, state: p.state }),
      )
    const hidden = Object.entries(p)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v ?? '')}">`)
      .join('')
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><title>Authorize - Lever</title><form method="post" action="/authorize">${hidden}` +
          '<button name="decision" value="allow">Accept</button><button name="decision" value="deny">Decline</button></form>',
      )
  })
  app.post('/authorize', async (request, reply) => {
    const p = formOf(request)
    const c = checked(p)
    if ('page' in c)
      return reply
        .code(400)
        .type('text/html')
        .send(`<h1>Error</h1><p>${esc(c.page as string)}</p>`)
    if ('error' in c)
      return reply.redirect(
        back(p.redirect_uri as string, { error: c.error, error_description: c.description, state: p.state }),
      )
    if (p.decision !== 'allow')
      return reply.redirect(back(p.redirect_uri as string, { error: 'access_denied', state: p.state }))
    const code = randomBytes(16).toString('hex')
    oauth.codes.set(code, {
      clientId: p.client_id as string,
      redirectUri: p.redirect_uri as string,
      scopes: c.scopes,
    })
    return reply.redirect(back(p.redirect_uri as string, { code, state: p.state }))
  })
  app.post('/oauth/token', async (request, reply) => {
    const p = withBasicClient(request, formOf(request))
    oauth.tokenRequests.push(p.grant_type ?? '')
    const client = p.client_id ? oauth.clients.get(p.client_id) : undefined
    if (!client || client.secret !== p.client_secret)
      return tokenError(reply, 401, 'access_denied', 'Unauthorized')
    if (p.grant_type === 'authorization_code') {
      const code = p.code ? oauth.codes.get(p.code) : undefined
      // Codes are single-use and bound to the client and redirect URI they were issued for.
      if (p.code) oauth.codes.delete(p.code)
      if (!code || code.clientId !== p.client_id || code.redirectUri !== p.redirect_uri)
        return tokenError(reply, 403, 'invalid_grant', 'Invalid authorization code')
      return oauth.issue(code.clientId, code.scopes)
    }
    if (p.grant_type === 'refresh_token') {
      const grant = p.refresh_token ? oauth.refreshTokens.get(p.refresh_token) : undefined
      if (!grant || grant.clientId !== p.client_id)
        return tokenError(reply, 403, 'invalid_grant', 'Unknown or invalid refresh token.')
      // Rotation: the refresh token used is spent.
      oauth.refreshTokens.delete(p.refresh_token as string)
      return oauth.issue(grant.clientId, grant.scopes)
    }
    return tokenError(reply, 400, 'unsupported_grant_type', 'Unsupported grant type')
  })
}
