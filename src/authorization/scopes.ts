/** A requested permission the integration cannot grant; the message names what it can. */
export class UnknownPermission extends Error {}

/**
 * The unified permissions a new connection asks for: the requested ones (comma-joined or repeated, as
 * the widgets and the SDK send them) checked against what the integration implements, or all of them.
 */
export function requestedPermissions(
  requested: readonly string[] | undefined,
  available: readonly string[],
  integrationName: string,
): string[] {
  const names = (requested ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean)
  if (names.length === 0) return [...available]
  const unknown = names.filter((n) => !available.includes(n))
  if (unknown.length > 0) {
    throw new UnknownPermission(
      `scopes: ${unknown.join(', ')} cannot be granted by ${integrationName}; use any of ${available.join(', ')}`,
    )
  }
  return [...new Set(names)]
}

/**
 * The provider's own scopes for a set of unified permissions, from the integration's map, plus the
 * scopes it always needs (verification, refresh). Order is stable so authorize URLs are reproducible.
 */
export function providerScopes(
  permissions: readonly string[],
  map: Readonly<Record<string, readonly string[]>>,
  always: readonly string[] = [],
): string[] {
  const out = new Set(always)
  for (const p of permissions) for (const s of map[p] ?? []) out.add(s)
  return [...out]
}
