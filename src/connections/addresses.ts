import { ApiError, badRequest } from '../errors.js'
import { authFieldsOf } from '../integrations/auth-methods.js'
import type { AuthField, Credentials, IntegrationDefinition } from '../integrations/types.js'
import { type AllowedAddress, outboundUrlProblem } from '../outbound/index.js'

/**
 * Non-secret auth fields that choose where requests go: an address (`api_url`, `collect_url`), or what an
 * address is derived from (a region, a hosting kind, a Matomo Cloud account). Together with the base
 * address they say where a connection's secrets are sent; a provider's second host (Amplitude's ingestion,
 * Umami's collector) moves with one of them.
 */
const ADDRESS_FIELD = /(_url|^region|^hosting|^host|^account|^subdomain)$/

function isAddressField(field: AuthField): boolean {
  return !field.secret && ADDRESS_FIELD.test(field.name)
}

/**
 * Why the credentials' addresses may not be used, before any request is made: every `*_url` field must be
 * an http(s) URL outside the refused ranges, and so must the base address they lead to. `label` names a
 * field in the message (`auth.api_url` for the API, the field's label on the hosted page).
 */
export function addressProblem(
  integration: IntegrationDefinition,
  credentials: Credentials,
  allowed: readonly AllowedAddress[],
  label: (field: AuthField) => string = (f) => `auth.${f.name}`,
): string | undefined {
  for (const field of authFieldsOf(integration)) {
    const value = credentials[field.name]
    if (field.secret || !field.name.endsWith('_url') || value === undefined) continue
    const problem = outboundUrlProblem(label(field), value, allowed)
    if (problem) return problem
  }
  let base: string
  try {
    base = integration.baseUrl(credentials)
  } catch (err) {
    if (err instanceof ApiError) return err.message
    throw err
  }
  return outboundUrlProblem(`${integration.name}'s address`, base, allowed)
}

/** Whether the credentials name an address of their own (a `*_url` field) rather than the provider's. */
export function givesOwnAddress(integration: IntegrationDefinition, credentials: Credentials): boolean {
  return authFieldsOf(integration).some(
    (field) => !field.secret && field.name.endsWith('_url') && credentials[field.name] !== undefined,
  )
}

/** Throws the 400 for `addressProblem`. */
export function checkAddresses(
  integration: IntegrationDefinition,
  credentials: Credentials,
  allowed: readonly AllowedAddress[],
): void {
  const problem = addressProblem(integration, credentials, allowed)
  if (problem) throw badRequest(problem)
}

/** Where the credentials send secrets: the base address and every field that chooses an address. */
export function addressOf(integration: IntegrationDefinition, credentials: Credentials): string {
  let base: string
  try {
    base = integration.baseUrl(credentials)
  } catch {
    base = ''
  }
  const fields = authFieldsOf(integration)
    .filter(isAddressField)
    .map((f) => `${f.name}=${credentials[f.name] ?? ''}`)
  return [base, ...fields].join('\n')
}

/** The address fields `next` changes from `current`, by name. */
export function movedFields(
  integration: IntegrationDefinition,
  current: Credentials,
  next: Credentials,
): string[] {
  return authFieldsOf(integration)
    .filter((f) => isAddressField(f) && (current[f.name] ?? '') !== (next[f.name] ?? ''))
    .map((f) => f.name)
}

/**
 * A change of address must bring the secrets along: a stored secret is sent only to the address it was
 * verified with, so moving a connection without re-supplying them would hand them to whoever runs the new
 * address (a PATCH of `auth.api_url` alone would otherwise verify the stored token there). Answers the
 * stored secret fields the change leaves out, or none when the address does not move.
 */
export function secretsToResupply(
  integration: IntegrationDefinition,
  current: Credentials,
  given: Credentials,
): string[] {
  const next = { ...current, ...given }
  if (addressOf(integration, current) === addressOf(integration, next)) return []
  return authFieldsOf(integration)
    .filter((f) => f.secret && current[f.name] && !given[f.name])
    .map((f) => f.name)
}
