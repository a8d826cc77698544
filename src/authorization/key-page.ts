import { type ConnectionService, credentialsFrom } from '../connections/index.js'
import { ApiError } from '../errors.js'
import { apiKeyOf } from '../integrations/auth-methods.js'
import type { AuthField, IntegrationDefinition } from '../integrations/types.js'
import { type AuthorizationFlow, keyPageUrl } from './flow.js'
import type { Outcome } from './outcome.js'
import { keyFormPage } from './pages/key-form.js'
import type { AuthRequest } from './request.js'
import type { AuthStateStore } from './state-store.js'
import { looksLikeStateToken } from './state-token.js'

/** The fields the page asks for: the key's own, never another method's tokens. */
function keyFields(integration: IntegrationDefinition): readonly AuthField[] {
  return apiKeyOf(integration)?.fields ?? []
}

/** Rejected keys allowed per authorization before it ends in a failure redirect (no endless guessing). */
export const MAX_KEY_ATTEMPTS = 5

/** The hosted page of API-key providers: shown, submitted, verified, and ended with the flow's redirects. */
export class KeyPage {
  constructor(
    private readonly flow: AuthorizationFlow,
    private readonly states: AuthStateStore,
    private readonly connections: ConnectionService,
  ) {}

  private form(
    token: string,
    request: AuthRequest,
    integration: IntegrationDefinition,
    status: number,
    error?: string,
    values?: Record<string, string>,
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
    return { kind: 'page', status, html }
  }

  async show(token: string): Promise<Outcome> {
    if (!looksLikeStateToken(token)) return this.flow.failForState({ ok: false, reason: 'unknown' })
    const pending = await this.states.peek(token)
    if (!pending.ok) return this.flow.failForState(pending)
    const integration = this.flow.integration(pending.request.integrationType)
    return this.form(token, pending.request, integration, 200)
  }

  async cancel(token: string): Promise<Outcome> {
    if (!looksLikeStateToken(token)) return this.flow.failForState({ ok: false, reason: 'unknown' })
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
    const pending = await this.states.peek(token)
    if (!pending.ok) return this.flow.failForState(pending)
    const { request } = pending
    const integration = this.flow.integration(request.integrationType)
    const shown: Record<string, string> = {}
    for (const f of keyFields(integration)) if (!f.secret && form[f.name]) shown[f.name] = form[f.name]!
    let settings: Awaited<ReturnType<ConnectionService['verify']>>
    let credentials: ReturnType<typeof credentialsFrom>
    try {
      credentials = credentialsFrom(integration, form, keyFields(integration))
      const missing = keyFields(integration).filter((f) => f.required && !credentials[f.name])
      if (missing.length > 0) {
        return this.form(
          token,
          request,
          integration,
          400,
          `Fill in ${missing.map((f) => f.label).join(', ')}.`,
          shown,
        )
      }
      settings = await this.connections.verify(integration, credentials)
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      if (err.statusCode === 400 && (await this.states.countAttempt(token)) >= MAX_KEY_ATTEMPTS) {
        const spent = await this.states.consume(token)
        return this.flow.fail(
          spent.ok ? spent.request : request,
          'too_many_attempts',
          `${integration.name} rejected the credentials ${MAX_KEY_ATTEMPTS} times: ${err.message}`,
        )
      }
      return this.form(token, request, integration, err.statusCode, err.message, shown)
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
