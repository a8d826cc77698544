import type { StoredConnection } from '../connections/index.js'
import { ApiError, badRequest, notFound } from '../errors.js'
import { apiKeyOf } from '../integrations/auth-methods.js'
import { integrationOf } from '../integrations/registry.js'
import { integrationPermissions } from '../integrations/support.js'
import type { IntegrationDefinition } from '../integrations/types.js'
import type { WorkspaceSettingsCache, WorkspaceStore } from '../workspaces/index.js'
import type { OAuthAppStore } from './oauth-apps.js'
import { authorizeUrl, oauthSpecOf } from './oauth-spec.js'
import type { FailureCode, Outcome } from './outcome.js'
import { resultPage } from './pages/result.js'
import { newPkcePair } from './pkce.js'
import type { AuthQuery } from './query.js'
import type { RateLimiter } from './rate-limit.js'
import { checkRedirectTarget, RedirectRefused, withParams } from './redirects.js'
import type { AuthRequest } from './request.js'
import { providerScopes, requestedPermissions, UnknownPermission } from './scopes.js'
import { signRedirect } from './sig.js'
import type { AuthStateStore, ConsumeResult } from './state-store.js'
import { newNonce } from './state-token.js'

export interface FlowDeps {
  readonly publicUrl: string
  readonly workspaces: Pick<WorkspaceStore, 'secretOf'>
  readonly workspaceSettings: Pick<WorkspaceSettingsCache, 'get'>
  readonly states: AuthStateStore
  readonly oauthApps: OAuthAppStore
  /** Authorizations started per workspace (unauthenticated callers start them). */
  readonly workspaceLimit?: RateLimiter
}

export const OAUTH_CALLBACK_PATH = '/unified/integration/oauth/callback'
export const KEY_PAGE_PATH = '/unified/integration/key'

/** Where a key page or a cancel link lives: the state token is the whole capability. */
export function keyPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${KEY_PAGE_PATH}/${token}`
}

/** The 429 of the authorization endpoints, with the wait in `retry-after`. */
export function tooManyRequests(seconds: number, who: string): ApiError {
  return new ApiError(429, `too many authorization requests from ${who}; retry in ${seconds} s`, {
    'retry-after': String(seconds),
  })
}

const FAILURE_TITLES: Record<FailureCode, string> = {
  access_denied: 'Access was not granted',
  cancelled: 'Connection cancelled',
  invalid_state: 'This authorization link is not valid',
  state_used: 'This authorization was already completed',
  state_expired: 'This authorization link has expired',
  provider_error: 'The provider reported an error',
  token_exchange_failed: 'The provider did not issue a token',
  verification_failed: 'The credentials could not be verified',
  too_many_attempts: 'Too many attempts',
  invalid_request: 'The authorization request is not valid',
}

/**
 * The start and the end of every authorization: checks the request against the workspace (redirect
 * origins, permissions, OAuth app), issues the state, and turns a result into the signed success
 * redirect or the failure redirect.
 */
export class AuthorizationFlow {
  constructor(private readonly deps: FlowDeps) {}

  get publicUrl(): string {
    return this.deps.publicUrl
  }

  integration(type: string): IntegrationDefinition {
    const integration = integrationOf(type)
    if (!integration) throw notFound(`integration '${type}' not found; see GET /unified/integration`)
    return integration
  }

  /** Answers the URL to send the end user to. Every check happens here, before anything is stored. */
  async start(workspaceId: string, integrationType: string, q: AuthQuery): Promise<string> {
    const workspace = await this.deps.workspaceSettings.get(workspaceId)
    if (!workspace) throw notFound(`workspace ${workspaceId} not found`)
    const wait = this.deps.workspaceLimit?.take(workspaceId)
    if (wait !== undefined) throw tooManyRequests(wait, 'this workspace')
    const integration = this.integration(integrationType)
    let permissions: string[]
    try {
      for (const [name, target] of [
        ['success_redirect', q.successRedirect],
        ['failure_redirect', q.failureRedirect],
      ] as const) {
        if (target) checkRedirectTarget(name, target, workspace.allowed_redirect_origins)
      }
      permissions = requestedPermissions(q.scopes, integrationPermissions(integration), integration.name)
    } catch (err) {
      // The refusal keeps what refused as its cause: a browser's page tells a refused redirect in fixed words.
      if (err instanceof RedirectRefused || err instanceof UnknownPermission)
        throw new ApiError(400, err.message, {}, {}, { cause: err })
      throw err
    }
    const request: AuthRequest = {
      workspaceId,
      integrationType: integration.type,
      permissions,
      environment: q.environment,
      ...(q.successRedirect ? { successRedirect: q.successRedirect } : {}),
      ...(q.failureRedirect ? { failureRedirect: q.failureRedirect } : {}),
      ...(q.externalXref ? { externalXref: q.externalXref } : {}),
      ...(q.state ? { state: q.state } : {}),
      ...(q.lang ? { lang: q.lang } : {}),
    }
    // Which flow: OAuth when the integration offers it and the workspace configured an OAuth app for it;
    // else the key page when it takes keys (PostHog offers both); an OAuth-only integration needs the app.
    const spec = oauthSpecOf(integration)
    const app = spec ? await this.deps.oauthApps.get(workspaceId, integration.type) : undefined
    if (!spec || (!app && apiKeyOf(integration)))
      return keyPageUrl(this.deps.publicUrl, await this.deps.states.create(request))
    if (!app) {
      throw badRequest(
        `${integration.name} uses OAuth and this workspace has no OAuth app for it; set one with PUT /unified/workspace/oauth_app/${integration.type} or unigate workspace oauth-app`,
      )
    }
    const pkce = spec.pkce ? newPkcePair() : undefined
    const redirectUri = `${this.deps.publicUrl}${OAUTH_CALLBACK_PATH}`
    const token = await this.deps.states.create({
      ...request,
      redirectUri,
      ...(pkce ? { codeVerifier: pkce.verifier } : {}),
    })
    return authorizeUrl(spec, app, {
      redirectUri,
      state: token,
      scopes: providerScopes(permissions, spec.scopes, spec.alwaysScopes),
      ...(pkce ? { codeChallenge: pkce.challenge } : {}),
    })
  }

  /** The signed success redirect (or, without one, a page that shows the new connection id). */
  async succeed(request: AuthRequest, connection: StoredConnection): Promise<Outcome> {
    const secret = await this.deps.workspaces.secretOf(request.workspaceId)
    if (!secret) throw new ApiError(404, `workspace ${request.workspaceId} not found`)
    const signed = {
      id: connection.id,
      state: request.state ?? '',
      nonce: newNonce(),
      type: connection.integration_type,
    }
    const params = { ...signed, sig: signRedirect(secret, signed) }
    const target = await this.allowedNow(request.workspaceId, request.successRedirect)
    if (target) return { kind: 'redirect', location: withParams(target, params) }
    const name = integrationOf(connection.integration_type)?.name ?? connection.integration_type
    return {
      kind: 'page',
      status: 200,
      html: resultPage({
        ok: true,
        title: `${name} is connected`,
        message: 'The connection was created. Its id:',
        detail: connection.id,
      }),
    }
  }

  /** The failure redirect with `error` (what happened) and `error_code`, or a page saying the same. */
  async fail(request: AuthRequest | undefined, code: FailureCode, message: string): Promise<Outcome> {
    const target = request && (await this.allowedNow(request.workspaceId, request.failureRedirect))
    if (request && target) {
      return {
        kind: 'redirect',
        location: withParams(target, {
          error: message,
          error_code: code,
          ...(request.state ? { state: request.state } : {}),
          type: request.integrationType,
        }),
      }
    }
    const status = code === 'invalid_state' || code === 'state_used' || code === 'state_expired' ? 400 : 200
    return { kind: 'page', status, html: resultPage({ ok: false, title: FAILURE_TITLES[code], message }) }
  }

  /**
   * `target` while the workspace still allows its origin, else undefined (a page instead): the origin was
   * checked when the link was made, and a workspace that removed it since must not have its end users sent
   * there for as long as the link's state lives.
   */
  private async allowedNow(workspaceId: string, target: string | undefined): Promise<string | undefined> {
    if (!target) return undefined
    const workspace = await this.deps.workspaceSettings.get(workspaceId)
    if (!workspace) return undefined
    try {
      checkRedirectTarget('redirect', target, workspace.allowed_redirect_origins)
      return target
    } catch (err) {
      if (err instanceof RedirectRefused) return undefined
      throw err
    }
  }

  /** The failure for a state that could not be used; a forged one has no redirect to go to. */
  failForState(result: Exclude<ConsumeResult, { ok: true }>): Promise<Outcome> {
    if (result.reason === 'unknown')
      return this.fail(
        undefined,
        'invalid_state',
        'The authorization request is unknown. Start again from the application you came from.',
      )
    if (result.reason === 'used')
      return this.fail(
        result.request,
        'state_used',
        'This authorization was already used; a connection is created only once. Start again to connect another account.',
      )
    return this.fail(
      result.request,
      'state_expired',
      'The authorization took too long and expired. Start again.',
    )
  }
}
