import {
  type ConnectionService,
  CredentialsNotVerified,
  credentialsFrom,
  givesOwnAddress,
} from '../connections/index.js'
import { ApiError, BoundRefusal } from '../errors.js'
import { apiKeyOf } from '../integrations/auth-methods.js'
import type { AuthField, IntegrationDefinition } from '../integrations/types.js'
import { type AuthorizationFlow, keyPageUrl } from './flow.js'
import type { Outcome } from './outcome.js'
import { keyFormPage } from './pages/key-form.js'
import { resultPage } from './pages/result.js'
import type { RateLimiter } from './rate-limit.js'
import type { AuthRequest } from './request.js'
import type { AuthStateStore, ConsumeResult } from './state-store.js'
import { looksLikeStateToken } from './state-token.js'

/** The fields the page asks for: the key's own, never another method's tokens. */
function keyFields(integration: IntegrationDefinition): readonly AuthField[] {
  return apiKeyOf(integration)?.fields ?? []
}

/**
 * Failed submissions allowed per authorization before it ends in a failure redirect: no endless guessing of
 * keys, and no probing of addresses through the verification call. Every kind of failure counts.
 */
export const MAX_KEY_ATTEMPTS = 5

/**
 * The bound the key page's verifications count against: one of their own per workspace, beside the
 * workspace's (UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY and _QUEUE each), so that visitors typing an address
 * that never answers hold the page's slots, never those of the workspace's own API calls.
 */
export function keyPageSlots(workspaceId: string): string {
  return `${workspaceId}#key-page`
}

/** What a browser is shown when a limit is reached: a page, with the wait in `retry-after`. */
export function tooManyPage(seconds: number): Outcome {
  return {
    kind: 'page',
    status: 429,
    headers: { 'retry-after': String(seconds) },
    html: resultPage({
      ok: false,
      title: 'Too many requests',
      message: `Too many attempts were made. Try again in ${seconds} seconds.`,
    }),
  }
}

/** The hosted page of API-key providers: shown, submitted, verified, and ended with the flow's redirects. */
export class KeyPage {
  constructor(
    private readonly flow: AuthorizationFlow,
    private readonly states: AuthStateStore,
    private readonly connections: ConnectionService,
    /** Verification attempts per workspace, shared with the auth endpoint's. */
    private readonly workspaceLimit?: RateLimiter,
  ) {}

  /**
   * The pending authorization a key page link names, or unknown for one that is an OAuth authorization's
   * (it has a redirect URI): that state travels in the provider's authorize URL, and taken here it completed
   * the authorization with any key and address its sender chose, signed for the user's own `state` and
   * `external_xref`, with no code, no PKCE and no consent. It is left unspent for its own flow.
   */
  private async keyPageState(token: string): Promise<ConsumeResult> {
    const pending = await this.states.peek(token)
    if (pending.ok || pending.reason !== 'unknown')
      if (pending.request.redirectUri !== undefined) return { ok: false, reason: 'unknown' }
    return pending
  }

  private form(
    token: string,
    request: AuthRequest,
    integration: IntegrationDefinition,
    status: number,
    error?: string,
    values?: Record<string, string>,
    headers?: Readonly<Record<string, string>>,
  ): Outcome {
    const url = keyPageUrl(this.flow.publicUrl, token)
    const html = keyFormPage({
      integrationName: integration.name,
      ...(integration.color ? { color: integration.color } : {}),
      fields: keyFields(integration),
      action: url,
      cancelUrl: `${url}/cancel`,
      ...(error ? { error } : {}),
      ...(values ? { values } : {}),
      ...(request.lang ? { lang: request.lang } : {}),
    })
    return { kind: 'page', status, html, ...(headers ? { headers } : {}) }
  }

  async show(token: string): Promise<Outcome> {
    if (!looksLikeStateToken(token)) return this.flow.failForState({ ok: false, reason: 'unknown' })
    const pending = await this.keyPageState(token)
    if (!pending.ok) return this.flow.failForState(pending)
    const integration = this.flow.integration(pending.request.integrationType)
    return this.form(token, pending.request, integration, 200)
  }

  async cancel(token: string): Promise<Outcome> {
    if (!looksLikeStateToken(token)) return this.flow.failForState({ ok: false, reason: 'unknown' })
    const pending = await this.keyPageState(token)
    if (!pending.ok && pending.reason === 'unknown') return this.flow.failForState(pending)
    const spent = await this.states.consume(token)
    if (!spent.ok) return this.flow.failForState(spent)
    return this.flow.fail(spent.request, 'cancelled', 'The user cancelled the connection.')
  }

  /**
   * Verifies the submitted fields with the provider before spending the state, so a mistyped key can be
   * corrected on the same page; the state is spent only by the attempt that creates the connection.
   */
  async submit(token: string, form: Readonly<Record<string, string>>): Promise<Outcome> {
    if (!looksLikeStateToken(token)) return this.flow.failForState({ ok: false, reason: 'unknown' })
    const pending = await this.keyPageState(token)
    if (!pending.ok) return this.flow.failForState(pending)
    const { request } = pending
    const integration = this.flow.integration(request.integrationType)
    const wait = this.workspaceLimit?.take(request.workspaceId)
    if (wait !== undefined) return tooManyPage(wait)
    const fields = keyFields(integration)
    const shown: Record<string, string> = {}
    for (const f of fields) if (!f.secret && form[f.name]) shown[f.name] = form[f.name]!
    const tooMany = async (): Promise<Outcome> => {
      const spent = await this.states.consume(token)
      return this.flow.fail(
        spent.ok ? spent.request : request,
        'too_many_attempts',
        `${integration.name}: the credentials could not be verified in ${MAX_KEY_ATTEMPTS} attempts.`,
      )
    }
    // Every submit takes its attempt before anything is checked or sent. Counted only after a failed
    // verification, submits sent together on one link all passed the count before any was counted: the
    // page verified as many keys (and reached a typed address as often) as a client sent at once.
    const attempt = await this.states.countAttempt(token)
    if (attempt === undefined) return this.flow.failForState({ ok: false, reason: 'unknown' })
    if (attempt > MAX_KEY_ATTEMPTS) return tooMany()
    const failed = async (message: string): Promise<Outcome> =>
      attempt >= MAX_KEY_ATTEMPTS ? tooMany() : this.form(token, request, integration, 400, message, shown)
    let credentials: ReturnType<typeof credentialsFrom>
    try {
      credentials = credentialsFrom(integration, form, fields)
    } catch (err) {
      // Our own check of a field's allowed values: safe to show, and names the field.
      if (!(err instanceof ApiError)) throw err
      return failed(err.message)
    }
    const missing = fields.filter((f) => f.required && !credentials[f.name])
    if (missing.length > 0) return failed(`Fill in ${missing.map((f) => f.label).join(', ')}.`)
    // Checked before any request: a malformed or refused address is named, and nothing is sent to it.
    const address = this.connections.addressProblem(integration, credentials, (f) => f.label)
    if (address) return failed(address)
    let settings: Awaited<ReturnType<ConnectionService['verify']>>
    try {
      settings = await this.connections.verify(
        request.workspaceId,
        integration,
        credentials,
        keyPageSlots(request.workspaceId),
      )
    } catch (err) {
      // Refused by the page's bound on provider calls (keyPageSlots): the key was not (or not wholly) tried,
      // so this page can say no more about it than before. The attempt is given back, and the page says to
      // retry shortly, where "could not verify" sent the user to check a key that may well be right and, on
      // the link's last attempt, ended the authorization.
      if (err instanceof BoundRefusal) {
        await this.states.refundAttempt(token)
        return this.form(
          token,
          request,
          integration,
          429,
          `Too many calls to ${integration.name} are running for this account right now, so these credentials were not checked. Try again in a moment.`,
          shown,
          { 'retry-after': '1' },
        )
      }
      // Any other failure reads the same and counts as an attempt. Anyone holding the link sees this page: it
      // says no more than the provider's status, and that only for the provider's own address. What an
      // address answered, whether it refused, timed out or was unreachable, and for an address typed here
      // even its status, would make the page a scanner of whatever the server can reach (private ranges
      // included, where the operator allows them).
      const status =
        err instanceof CredentialsNotVerified && !givesOwnAddress(integration, credentials)
          ? err.providerStatus
          : undefined
      return failed(
        `${integration.name} could not verify these credentials${status ? ` (HTTP ${status})` : ''}. Check them and try again.`,
      )
    }
    const spent = await this.states.consume(token)
    if (!spent.ok) return this.flow.failForState(spent)
    const connection = await this.connections.insertVerified(request.workspaceId, {
      integration,
      credentials,
      settings,
      permissions: request.permissions,
      ...(request.externalXref ? { external_xref: request.externalXref } : {}),
      environment: request.environment,
    })
    return this.flow.succeed(request, connection)
  }
}
