import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CONTROL_PREFIX, formOf, installFormParser } from '../kit/index.js'
import { ACCESS_TOKEN_TTL_SECONDS, DEFAULT_GUSTO_CLIENT, READ_SCOPES } from './constants.js'

/**
 * Gusto's OAuth server as its guides describe it (https://docs.gusto.com/app-integrations/docs/oauth2,
 * https://docs.gusto.com/embedded-payroll/docs/company-access-tokens, and the `/oauth/token` operation of Gusto's
 * OpenAPI): authorization codes for registered redirect URIs; the app's scopes fixed when Gusto reviewed
 * it, not asked per authorization (https://docs.gusto.com/app-integrations/docs/scopes); one company per token;
 * access tokens that expire after 2 hours; every refresh answers a new refresh token, and "the previous
 * refresh_token will be revoked on the first usage of the new access_token" (refresh-access-token reference).
 */

export interface GustoClient {
  readonly clientId: string
  readonly clientSecret: string
  readonly redirectUris: readonly string[]
  readonly name?: string
  /** The scopes Gusto assigned the application. */
  readonly scopes?: readonly string[]
}

interface Grant {
  readonly clientId: string
  readonly scopes: readonly string[]
  readonly company: string
  readonly access: string
  readonly refresh: string
  readonly expiresAt: number
  /** The grant this one was refreshed from: revoked when this access token is first used. */
  previous?: string
  revoked: boolean
}

export interface GustoTokenBody {
  access_token: string
  token_type: 'bearer'
  expires_in: number
  refresh_token: string
  scope: string
  created_at: number
}

type Form = Readonly<Record<string, string | undefined>>
type Failure = { status: number; body: { error: string; error_description: string } }

const fail = (status: number, error: string, error_description: string): Failure => ({
  status,
  body: { error, error_description },
})

export class GustoOAuth {
  private readonly clients = new Map<string, GustoClient>()
  private readonly codes = new Map<string, { clientId: string; redirectUri: string; expiresAt: number }>()
  private readonly byAccess = new Map<string, Grant>()
  private readonly byRefresh = new Map<string, Grant>()
  private offsetMs = 0

  constructor(
    readonly company: string,
    readonly accessTokenTtlSeconds = ACCESS_TOKEN_TTL_SECONDS,
  ) {
    this.registerClient(DEFAULT_GUSTO_CLIENT)
  }

  now(): number {
    return Date.now() + this.offsetMs
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000
  }

  registerClient(client: GustoClient): void {
    this.clients.set(client.clientId, client)
  }

  client(id: string | undefined): GustoClient | undefined {
    return id ? this.clients.get(id) : undefined
  }

  /** Tokens as a finished authorization would give them, for connections made from held credentials. */
  issueTokens(clientId = DEFAULT_GUSTO_CLIENT.clientId, scopes?: readonly string[]): GustoTokenBody {
    return this.mint(clientId, scopes ?? this.client(clientId)?.scopes ?? READ_SCOPES)
  }

  issueCode(clientId: string, redirectUri: string): string {
    const code = randomBytes(24).toString('base64url')
    // Codes are short-lived and single use (RFC 6749 4.1.2, which Gusto's code flow follows).
    this.codes.set(code, { clientId, redirectUri, expiresAt: this.now() + 600_000 })
    return code
  }

  private mint(clientId: string, scopes: readonly string[], previous?: string): GustoTokenBody {
    // URL-safe base64 tokens (https://docs.gusto.com/embedded-payroll/docs/company-access-tokens).
    const access = randomBytes(32).toString('base64url')
    const refresh = randomBytes(32).toString('base64url')
    const grant: Grant = {
      clientId,
      scopes: [...scopes],
      company: this.company,
      access,
      refresh,
      expiresAt: this.now() + this.accessTokenTtlSeconds * 1000,
      previous,
      revoked: false,
    }
    this.byAccess.set(access, grant)
    this.byRefresh.set(refresh, grant)
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: this.accessTokenTtlSeconds,
      refresh_token: refresh,
      scope: scopes.join(' '),
      created_at: Math.floor(this.now() / 1000),
    }
  }

  /** Client authentication: `client_id` and `client_secret` are required on every token request. */
  private authenticate(f: Form): GustoClient | Failure {
    const client = this.client(f.client_id)
    if (!client || f.client_secret !== client.clientSecret) {
      return fail(
        401,
        'invalid_client',
        'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      )
    }
    return client
  }

  token(f: Form): GustoTokenBody | Failure {
    if (f.grant_type !== 'authorization_code' && f.grant_type !== 'refresh_token') {
      return fail(
        400,
        'unsupported_grant_type',
        'The authorization grant type is not supported by the authorization server.',
      )
    }
    const client = this.authenticate(f)
    if ('status' in client) return client
    const invalidGrant = fail(
      400,
      'invalid_grant',
      'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
    )
    if (f.grant_type === 'authorization_code') {
      const code = f.code ? this.codes.get(f.code) : undefined
      if (f.code) this.codes.delete(f.code)
      if (!code || code.expiresAt <= this.now() || code.clientId !== client.clientId) return invalidGrant
      if (f.redirect_uri !== code.redirectUri) return invalidGrant
      return this.mint(client.clientId, client.scopes ?? READ_SCOPES)
    }
    const grant = f.refresh_token ? this.byRefresh.get(f.refresh_token) : undefined
    if (!grant || grant.revoked || grant.clientId !== client.clientId) return invalidGrant
    // The old pair stays usable until the new access token is first used.
    return this.mint(client.clientId, grant.scopes, grant.refresh)
  }

  /** The grant behind an access token, or why it is refused; its first use retires the grant it replaced. */
  check(
    access: string,
  ): { ok: true; scopes: readonly string[]; company: string; grant: string } | { ok: false } {
    const grant = this.byAccess.get(access)
    if (!grant || grant.revoked || grant.expiresAt <= this.now()) return { ok: false }
    if (grant.previous) {
      const old = this.byRefresh.get(grant.previous)
      if (old) old.revoked = true
      grant.previous = undefined
    }
    return { ok: true, scopes: grant.scopes, company: grant.company, grant: grant.refresh }
  }

  /** Whether a refresh token can still be exchanged (tests check rotation with it). */
  refreshTokenLive(token: string): boolean {
    const grant = this.byRefresh.get(token)
    return grant !== undefined && !grant.revoked
  }
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function back(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri)
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
  return url.toString()
}

/** Parses a JSON or form token request; Gusto's OpenAPI shows JSON, OAuth clients send forms (RFC 6749 4.1.3). */
function tokenForm(request: FastifyRequest): Form {
  return formOf(request)
}

export function registerOAuthRoutes(app: FastifyInstance, oauth: GustoOAuth): void {
  installFormParser(app)

  const checked = (p: Form, reply: FastifyReply) => {
    const client = oauth.client(p.client_id)
    // An unknown client or redirect URI gets an error page, never a redirect (RFC 6749 4.1.2.1).
    if (!client || !p.redirect_uri || !client.redirectUris.includes(p.redirect_uri)) {
      reply
        .code(400)
        .type('text/html; charset=utf-8')
        .send('<!doctype html><title>Gusto</title><h1>Invalid client or redirect URI</h1>')
      return undefined
    }
    if (p.response_type !== 'code') {
      reply.redirect(back(p.redirect_uri, { error: 'unsupported_response_type', state: p.state }), 302)
      return undefined
    }
    return client
  }

  /** `GET /oauth/authorize`: the consent page, the admin signed in, the one company to choose. */
  app.get('/oauth/authorize', async (request, reply) => {
    const p = formOf(request)
    const client = checked(p, reply)
    if (!client) return reply
    const hidden = Object.entries(p)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v ?? '')}">`)
      .join('')
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize ${esc(client.name ?? client.clientId)} - Gusto</title></head>
<body><main><h1>${esc(client.name ?? client.clientId)} would like to access your Gusto account</h1>
<p>Company: Emulated Payroll (${esc(oauth.company)})</p>
<form method="post" action="/oauth/authorize">${hidden}
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
<button type="submit" name="decision" value="allow" id="allow">Allow</button></form></main></body></html>`)
  })

  app.post('/oauth/authorize', async (request, reply) => {
    const p = formOf(request)
    const client = checked(p, reply)
    if (!client) return reply
    if (p.decision !== 'allow')
      return reply.redirect(back(p.redirect_uri!, { error: 'access_denied', state: p.state }), 302)
    const code = oauth.issueCode(client.clientId, p.redirect_uri!)
    return reply.redirect(back(p.redirect_uri!, { code, state: p.state }), 302)
  })

  /** `POST /oauth/token`: authorization_code and refresh_token grants (Gusto OpenAPI, oauth-access-token). */
  app.post('/oauth/token', async (request, reply) => {
    const answer = oauth.token(tokenForm(request))
    reply.header('cache-control', 'no-store')
    if ('status' in answer) return reply.code(answer.status).send(answer.body)
    return reply.code(200).send(answer)
  })

  const control = `${CONTROL_PREFIX}gusto/oauth/`
  app.post(`${control}clients`, async (request, reply) => {
    const b = (request.body ?? {}) as Record<string, unknown>
    const uris = Array.isArray(b.redirect_uris) ? b.redirect_uris.map(String) : []
    if (typeof b.client_id !== 'string' || typeof b.client_secret !== 'string' || uris.length === 0)
      return reply.code(400).send({ error: 'client_id, client_secret and redirect_uris are required' })
    oauth.registerClient({ clientId: b.client_id, clientSecret: b.client_secret, redirectUris: uris })
    return reply.code(201).send({ client_id: b.client_id })
  })
  app.post(`${control}tokens`, async (request, reply) => {
    const b = (request.body ?? {}) as Record<string, unknown>
    const scopes = Array.isArray(b.scopes) ? b.scopes.map(String) : undefined
    return reply
      .code(201)
      .send(oauth.issueTokens(typeof b.client_id === 'string' ? b.client_id : undefined, scopes))
  })
  app.post(`${control}clock`, async (request, reply) => {
    const seconds = (request.body as { advance_seconds?: unknown } | undefined)?.advance_seconds
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
      return reply.code(400).send({ error: 'advance_seconds (0 or more) is required' })
    oauth.advance(seconds)
    return reply.code(200).send({ now: new Date(oauth.now()).toISOString() })
  })
}
