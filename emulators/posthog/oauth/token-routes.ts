import type { FastifyInstance, FastifyRequest } from 'fastify'
import { CONTROL_PREFIX, formOf, installFormParser, withBasicClient } from '../../kit/index.js'
import { DEFAULT_OAUTH_CLIENT, type PosthogOAuthAuthority } from './authority.js'
import { POSTHOG_AUTHORIZE_PATH } from './consent.js'
import { redirectedToSlash } from './form.js'

export const POSTHOG_TOKEN_PATH = '/oauth/token/'
export const POSTHOG_REVOKE_PATH = '/oauth/revoke/'
/** Control endpoints of the emulated authorization server (never recorded, never faulted). */
export const POSTHOG_OAUTH_CONTROL = `${CONTROL_PREFIX}posthog/oauth/`

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }

function origin(request: FastifyRequest): string {
  return `${request.protocol}://${request.headers.host ?? request.hostname}`
}

/**
 * `POST /oauth/token/` (authorization_code, refresh_token), `POST /oauth/revoke/`, the RFC 8414 metadata
 * PostHog publishes, and control endpoints that register clients and move the clock.
 */
export function registerTokenRoutes(app: FastifyInstance, authority: PosthogOAuthAuthority): void {
  installFormParser(app)
  app.post(POSTHOG_TOKEN_PATH, async (request, reply) => {
    if (redirectedToSlash(request, reply)) return reply
    const form = withBasicClient(request, formOf(request))
    reply.headers(NO_STORE)
    const result =
      form.grant_type === 'authorization_code'
        ? authority.exchangeCode(form)
        : form.grant_type === 'refresh_token'
          ? authority.refreshTokens(form)
          : undefined
    if (!result) {
      const error = form.grant_type ? 'unsupported_grant_type' : 'invalid_request'
      return reply.code(400).send({
        error,
        error_description: form.grant_type ? 'Unsupported grant type.' : 'Missing grant type.',
      })
    }
    if (!result.ok) return reply.code(result.failure.status).send(result.failure.body)
    return reply.code(200).send(result.body)
  })

  app.post(POSTHOG_REVOKE_PATH, async (request, reply) => {
    if (redirectedToSlash(request, reply)) return reply
    const form = withBasicClient(request, formOf(request))
    if (!form.token)
      return reply.code(400).send({ error: 'invalid_request', error_description: 'Missing token parameter.' })
    const failure = authority.revoke(form)
    if (failure) return reply.code(failure.status).send(failure.body)
    return reply.code(200).send('')
  })

  app.get('/.well-known/oauth-authorization-server', async (request) => {
    const base = origin(request)
    return {
      issuer: base,
      authorization_endpoint: `${base}${POSTHOG_AUTHORIZE_PATH}`,
      token_endpoint: `${base}${POSTHOG_TOKEN_PATH}`,
      revocation_endpoint: `${base}${POSTHOG_REVOKE_PATH}`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
      scopes_supported: [
        'openid',
        'profile',
        'email',
        'user:read',
        'project:read',
        'project:write',
        'query:read',
        'person:read',
        'person:write',
      ],
    }
  })

  app.post(`${POSTHOG_OAUTH_CONTROL}clients`, async (request, reply) => {
    const b = (request.body ?? {}) as Record<string, unknown>
    const uris = Array.isArray(b.redirect_uris) ? b.redirect_uris.map(String) : []
    if (typeof b.client_id !== 'string' || uris.length === 0)
      return reply.code(400).send({ error: 'client_id and redirect_uris (a non-empty array) are required' })
    authority.registerClient({
      clientId: b.client_id,
      redirectUris: uris,
      ...(typeof b.client_secret === 'string' ? { clientSecret: b.client_secret } : {}),
      ...(typeof b.name === 'string' ? { name: b.name } : {}),
    })
    return reply.code(201).send({ client_id: b.client_id })
  })

  app.post(`${POSTHOG_OAUTH_CONTROL}tokens`, async (request, reply) => {
    const b = (request.body ?? {}) as Record<string, unknown>
    if (!Array.isArray(b.scopes))
      return reply.code(400).send({ error: 'scopes (an array of scope strings) is required' })
    const clientId = typeof b.client_id === 'string' ? b.client_id : DEFAULT_OAUTH_CLIENT.clientId
    return reply.code(201).send(authority.issueTokens({ clientId, scopes: b.scopes.map(String) }))
  })

  app.post(`${POSTHOG_OAUTH_CONTROL}clock`, async (request, reply) => {
    const seconds = (request.body as { advance_seconds?: unknown } | undefined)?.advance_seconds
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
      return reply.code(400).send({ error: 'advance_seconds (a number of seconds, 0 or more) is required' })
    authority.advance(seconds)
    return reply.code(200).send({ now: new Date(authority.now()).toISOString() })
  })
}
