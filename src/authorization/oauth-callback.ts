import type { FastifyBaseLogger } from 'fastify'
import { clipApiCallText } from '../apicalls/api-call.js'
import { type ConnectionService, CredentialsNotVerified } from '../connections/index.js'
import { ApiError } from '../errors.js'
import { redactSecrets } from '../integrations/http-client.js'
import type { Credentials } from '../integrations/types.js'
import type { AuthorizationFlow } from './flow.js'
import type { OAuthAppStore } from './oauth-apps.js'
import { oauthSpecOf } from './oauth-spec.js'
import type { Outcome } from './outcome.js'
import type { AuthStateStore } from './state-store.js'
import { looksLikeStateToken } from './state-token.js'
import { pinnedAddresses } from './tokens/pinned.js'
import { basicCredentialsOf, type TokenClient } from './tokens/token-client.js'
import { credentialsFromTokens, grantedPermissions, TokenEndpointError } from './tokens/token-set.js'

/**
 * The errors an authorization endpoint may send back (RFC 6749 section 4.1.2.1, and OpenID Connect Core 1.0
 * section 3.1.2.6 for providers that speak it, Google among them): the only words of the callback's query the
 * page and the failure redirect repeat. Anyone can start an authorization and open the callback with its
 * state and an `error` or `error_description` of their choosing: repeated, they put a sentence of theirs
 * ("your account is locked, call …") on Unigate's page, over "Secured by Unigate", and into the integrator's
 * failure redirect.
 */
const AUTHORIZATION_ERROR_CODES: readonly string[] = [
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
  'invalid_request_uri',
  'invalid_request_object',
  'request_not_supported',
  'request_uri_not_supported',
  'registration_not_supported',
]

/** What a provider sends back to the callback (RFC 6749 sections 4.1.2 and 4.1.2.1). */
export interface CallbackQuery {
  readonly state?: string
  readonly code?: string
  readonly error?: string
  readonly error_description?: string
}

/**
 * The callback's query as one string per name: a repeated name (`error=a&error=b`, which anyone opening the
 * callback can send) arrives as a list, and only its first value is read, as a provider sends each once.
 */
export function callbackQueryOf(query: Readonly<Record<string, unknown>>): CallbackQuery {
  const first = (value: unknown): string | undefined => {
    const one = Array.isArray(value) ? value[0] : value
    return typeof one === 'string' ? one : undefined
  }
  const out: { -readonly [K in keyof CallbackQuery]: string } = {}
  for (const name of ['state', 'code', 'error', 'error_description'] as const) {
    const value = first(query[name])
    if (value !== undefined) out[name] = value
  }
  return out
}

/**
 * The provider's redirect back to Unigate: spend the state (a replay or a forgery stops here, before any
 * provider call), exchange the code, verify the token with a cheap call, and create the connection.
 */
export class OAuthCallback {
  constructor(
    private readonly flow: AuthorizationFlow,
    private readonly states: AuthStateStore,
    private readonly oauthApps: OAuthAppStore,
    private readonly tokens: TokenClient,
    private readonly connections: ConnectionService,
  ) {}

  /**
   * `log` is the operator's: the page and the failure redirect name only registered codes, so the provider's
   * own words on why an authorization failed (its `error_description`, the token endpoint's answer) go there,
   * cut to 512 characters, with what the token request sent taken out of them.
   */
  async handle(q: CallbackQuery, log?: Pick<FastifyBaseLogger, 'warn'>): Promise<Outcome> {
    if (!looksLikeStateToken(q.state)) return this.flow.failForState({ ok: false, reason: 'unknown' })
    // A key page's state (no redirect URI) is no OAuth authorization: unknown here, and left unspent.
    const pending = await this.states.peek(q.state)
    if ((pending.ok || pending.reason !== 'unknown') && pending.request.redirectUri === undefined)
      return this.flow.failForState({ ok: false, reason: 'unknown' })
    const spent = await this.states.consume(q.state)
    if (!spent.ok) return this.flow.failForState(spent)
    const { request } = spent
    const integration = this.flow.integration(request.integrationType)
    const name = integration.name
    if (q.error) {
      log?.warn(
        {
          workspace_id: request.workspaceId,
          integration: integration.type,
          error: clipApiCallText(q.error),
          ...(q.error_description ? { error_description: clipApiCallText(q.error_description) } : {}),
        },
        'the provider answered the authorization with an error (words from the callback query, which anyone can open)',
      )
      return q.error === 'access_denied'
        ? this.flow.fail(request, 'access_denied', `The user declined to grant access at ${name}.`)
        : this.flow.fail(
            request,
            'provider_error',
            AUTHORIZATION_ERROR_CODES.includes(q.error)
              ? `${name} answered the authorization with ${q.error}.`
              : `${name} answered the authorization with an error.`,
          )
    }
    if (!q.code)
      return this.flow.fail(request, 'invalid_request', `${name} sent neither a code nor an error.`)
    const spec = oauthSpecOf(integration)
    const app = await this.oauthApps.get(request.workspaceId, integration.type)
    if (!spec || !app || !request.redirectUri) {
      return this.flow.fail(
        request,
        'invalid_request',
        `${name} has no OAuth app configured in this workspace.`,
      )
    }
    let credentials: Credentials
    try {
      const pinned = pinnedAddresses(spec, app)
      const client = { ...app, ...(spec.tokenEndpointAuth ? { method: spec.tokenEndpointAuth } : {}) }
      const tokens = await this.tokens.exchangeCode(request.workspaceId, pinned.token_url, client, {
        code: q.code,
        redirectUri: request.redirectUri,
        ...(request.codeVerifier ? { codeVerifier: request.codeVerifier } : {}),
        ...(spec.tokenFields ? { keep: spec.tokenFields } : {}),
      })
      const base: Credentials = {
        client_id: app.clientId,
        ...(app.endpoints.api_url ? { api_url: app.endpoints.api_url } : {}),
        // Refresh and revoke go where this authorization happened, whatever the app says later.
        ...pinned,
      }
      credentials = credentialsFromTokens(tokens, base, new Date())
    } catch (err) {
      // Refused by the workspace's own bound on provider calls: nothing was sent, and the code is spent.
      if (err instanceof ApiError) {
        return this.flow.fail(
          request,
          'token_exchange_failed',
          `Unigate did not ask ${name} for the token: ${err.message}.`,
        )
      }
      if (!(err instanceof TokenEndpointError)) throw err
      // A token endpoint may quote what it refuses: the code, the verifier, the client secret.
      const basic = basicCredentialsOf(app.clientId, app.clientSecret)
      const said = redactSecrets(err.message, [q.code, request.codeVerifier, app.clientSecret, basic])
      log?.warn(
        {
          workspace_id: request.workspaceId,
          integration: integration.type,
          status: err.status,
          error: clipApiCallText(said),
        },
        'the token endpoint refused to exchange the authorization code',
      )
      return this.flow.fail(
        request,
        'token_exchange_failed',
        `${name} refused to issue a token for the authorization code (${err.publicReason}).`,
      )
    }
    const permissions = grantedPermissions(request.permissions, spec.scopes, credentials.scope)
    if (permissions.length === 0) {
      return this.flow.fail(request, 'access_denied', `None of the requested access was granted at ${name}.`)
    }
    try {
      const settings = await this.connections.verify(request.workspaceId, integration, credentials)
      const connection = await this.connections.insertVerified(request.workspaceId, {
        integration,
        credentials,
        settings,
        permissions,
        ...(request.externalXref ? { external_xref: request.externalXref } : {}),
        environment: request.environment,
      })
      return await this.flow.succeed(request, connection)
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      // The browser's page says no more than the key page would: not what the address answered.
      const status = err instanceof CredentialsNotVerified ? err.providerStatus : undefined
      return this.flow.fail(
        request,
        'verification_failed',
        err instanceof CredentialsNotVerified
          ? `${name} could not verify the new token${status ? ` (HTTP ${status})` : ''}.`
          : err.message,
      )
    }
  }
}
