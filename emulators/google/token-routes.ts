import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { formOf, installFormParser, withBasicClient } from '../kit/index.js'
import type { GoogleTokenAuthority } from './token-authority.js'

/** Control endpoints of the emulated token authority (never recorded, never faulted). */
export const GOOGLE_CONTROL_PREFIX = '/__emulator/google/'

/**
 * `POST /token` and `POST /revoke` as `oauth2.googleapis.com` serves them (https://developers.google.com/identity/protocols/oauth2/web-server#exchange-authorization-code,
 * #offline, #tokenrevoke): form-encoded, client credentials in the body or HTTP Basic, errors as
 * `{error, error_description}` with RFC 6749 §5.2 codes; revoke answers 200 or 400 with an error code. Plus
 * control endpoints that stand in for the consent screen (mint a code or tokens) and move the clock.
 */
export function registerGoogleTokenRoutes(app: FastifyInstance, authority: GoogleTokenAuthority): void {
  installFormParser(app)
  app.post('/token', async (request: FastifyRequest, reply: FastifyReply) => {
    const form = withBasicClient(request, formOf(request))
    const grantType = form.grant_type
    const result =
      grantType === 'authorization_code'
        ? authority.exchangeCode(form)
        : grantType === 'refresh_token'
          ? authority.refreshAccess(form)
          : undefined
    reply.header('cache-control', 'no-cache, no-store, max-age=0, must-revalidate')
    if (!result) {
      return reply.code(400).send({
        error: 'unsupported_grant_type',
        error_description: grantType
          ? `Invalid grant_type: ${grantType}`
          : 'Missing required parameter: grant_type',
      })
    }
    if (!result.ok) return reply.code(result.failure.status).send(result.failure.body)
    return reply.code(200).send(result.body)
  })

  app.post('/revoke', async (request: FastifyRequest, reply: FastifyReply) => {
    const token = formOf(request).token
    if (!token)
      return reply
        .code(400)
        .send({ error: 'invalid_request', error_description: 'Missing required parameter: token' })
    if (!authority.revoke(token)) {
      return reply.code(400).send({ error: 'invalid_token', error_description: 'Token expired or revoked' })
    }
    return reply.code(200).send({})
  })

  app.post(`${GOOGLE_CONTROL_PREFIX}codes`, async (request, reply) => {
    const b = (request.body ?? {}) as Record<string, unknown>
    if (!Array.isArray(b.scopes))
      return reply.code(400).send({ error: 'scopes (an array of scope strings) is required' })
    try {
      const code = authority.issueCode({
        scopes: b.scopes.map(String),
        ...(typeof b.client_id === 'string' ? { clientId: b.client_id } : {}),
        ...(typeof b.redirect_uri === 'string' ? { redirectUri: b.redirect_uri } : {}),
        ...(typeof b.subject === 'string' ? { subject: b.subject } : {}),
        ...(typeof b.code_challenge === 'string' ? { codeChallenge: b.code_challenge } : {}),
        ...(b.code_challenge_method === 'plain' || b.code_challenge_method === 'S256'
          ? { codeChallengeMethod: b.code_challenge_method }
          : {}),
      })
      return reply.code(201).send({ code })
    } catch (err) {
      return reply.code(400).send({ error: (err as Error).message })
    }
  })

  app.post(`${GOOGLE_CONTROL_PREFIX}tokens`, async (request, reply) => {
    const b = (request.body ?? {}) as Record<string, unknown>
    if (!Array.isArray(b.scopes))
      return reply.code(400).send({ error: 'scopes (an array of scope strings) is required' })
    return reply.code(201).send(
      authority.issueTokens({
        scopes: b.scopes.map(String),
        ...(typeof b.client_id === 'string' ? { clientId: b.client_id } : {}),
        ...(typeof b.subject === 'string' ? { subject: b.subject } : {}),
      }),
    )
  })

  app.post(`${GOOGLE_CONTROL_PREFIX}clock`, async (request, reply) => {
    const seconds = (request.body as { advance_seconds?: unknown } | undefined)?.advance_seconds
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
      return reply.code(400).send({ error: 'advance_seconds (a number of seconds, 0 or more) is required' })
    }
    authority.advance(seconds)
    return reply.code(200).send({ now: new Date(authority.now()).toISOString() })
  })
}
