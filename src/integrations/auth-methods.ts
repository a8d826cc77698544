import type { ApiKeyAuth, AuthField, Credentials, IntegrationDefinition, OAuth2Auth } from './types.js'

/**
 * The ways an integration can be authorized, read from its definition: `auth` (the primary one) and the
 * optional `oauth` beside an API-key `auth`. Every reader of auth fields goes through here, so a second
 * method is honoured everywhere (stored fields, secrets, the key page, token refresh, docs).
 */

/** The OAuth description, whether OAuth is the integration's only method or its alternative. */
export function oauthOf(integration: IntegrationDefinition): OAuth2Auth | undefined {
  return integration.auth.kind === 'oauth2' ? integration.auth : integration.oauth
}

/** The API-key description the hosted key page asks for, when the integration takes keys. */
export function apiKeyOf(integration: IntegrationDefinition): ApiKeyAuth | undefined {
  return integration.auth.kind === 'api_key' ? integration.auth : undefined
}

function methods(integration: IntegrationDefinition): (ApiKeyAuth | OAuth2Auth)[] {
  return integration.oauth && integration.auth.kind !== 'oauth2'
    ? [integration.auth, integration.oauth]
    : [integration.auth]
}

/** `api_key`, `oauth2`, or both (`api_key, oauth2`), as the README table shows them. */
export function authKindsOf(integration: IntegrationDefinition): string {
  return methods(integration)
    .map((m) => m.kind)
    .join(', ')
}

/**
 * Every field a connection may hold, primary method first; a field both methods name (a region, an
 * api_url) appears once, as the primary describes it.
 */
export function authFieldsOf(integration: IntegrationDefinition): AuthField[] {
  const seen = new Set<string>()
  const out: AuthField[] = []
  for (const m of methods(integration))
    for (const f of m.fields) {
      if (seen.has(f.name)) continue
      seen.add(f.name)
      out.push(f)
    }
  return out
}

/**
 * The required fields the credentials lack, or none when they satisfy one method completely. When none
 * is satisfied, the method the credentials lean towards (one of its own fields is given) is the one to
 * complain about, else the primary: a half-given OAuth token should not be answered with "needs a key".
 */
export function missingAuthFields(integration: IntegrationDefinition, credentials: Credentials): AuthField[] {
  const all = methods(integration)
  const missing = all.map((m) => m.fields.filter((f) => f.required && !credentials[f.name]))
  if (missing.some((m) => m.length === 0)) return []
  const shared = (name: string) => all.filter((m) => m.fields.some((f) => f.name === name)).length > 1
  const leaning = all.findIndex((m) => m.fields.some((f) => !shared(f.name) && credentials[f.name]))
  return missing[Math.max(0, leaning)] ?? []
}
