import { badRequest } from '../errors.js'
import type { HandlerContext, IntegrationDefinition } from '../integrations/types.js'

/** How long a connection's property ids are trusted; writes through Unigate forget them at once. */
const TTL_MS = 5 * 60_000
/** Enough to decide "exactly one" and to name the choices in an error, without walking a huge account. */
const LOOKUP_LIMIT = 100
/** How many ids a 400 names before saying how many more there are. */
const NAMED_CHOICES = 20
/** Bounded so a server with many connections keeps a small cache (oldest entries go first). */
const MAX_ENTRIES = 1000

interface Entry {
  readonly at: number
  readonly ids: Promise<readonly string[] | undefined>
}

const cache = new Map<string, Entry>()

/** Forgets a connection's property ids (after a property was created, changed or removed through Unigate). */
export function forgetProperties(connectionId: string): void {
  cache.delete(connectionId)
}

async function lookUp(
  integration: IntegrationDefinition,
  ctx: HandlerContext,
): Promise<readonly string[] | undefined> {
  const list = integration.objects.analytics_property?.list
  if (!list) return undefined
  try {
    const records = await list(
      { ...ctx, fields: { raw: false, rawNames: [], slow: new Set() }, rawParams: {} },
      { limit: LOOKUP_LIMIT, offset: 0, filters: {} },
    )
    return records.map((r) => r.id).filter((id): id is string => typeof id === 'string' && id !== '')
  } catch {
    // The property list itself failing must not hide the caller's real problem: the missing parameter.
    return undefined
  }
}

/** The connection's property ids (at most LOOKUP_LIMIT), listed once and cached per connection. */
export function propertyIdsOf(
  integration: IntegrationDefinition,
  ctx: HandlerContext,
): Promise<readonly string[] | undefined> {
  const hit = cache.get(ctx.connectionId)
  if (hit && Date.now() - hit.at < TTL_MS) return hit.ids
  const ids = lookUp(integration, ctx)
  const entry = { at: Date.now(), ids }
  cache.delete(ctx.connectionId)
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
  cache.set(ctx.connectionId, entry)
  // A failed look-up is not remembered: the next request asks the provider again.
  void ids.then((found) => {
    if (found === undefined && cache.get(ctx.connectionId) === entry) cache.delete(ctx.connectionId)
  })
  return ids
}

/**
 * The property id to use when the caller gave none: the connection's only property. With none or several,
 * answers 400 naming `property_id` and the ids to choose from, so the caller needs no provider knowledge.
 */
export async function singlePropertyId(
  integration: IntegrationDefinition,
  ctx: HandlerContext,
  why: string,
  mayListProperties: boolean,
): Promise<string> {
  // Without the property read grant, the connection's properties are neither used nor named.
  const ids = mayListProperties ? await propertyIdsOf(integration, ctx) : undefined
  if (ids && ids.length === 1) return ids[0] as string
  const named = ids?.slice(0, NAMED_CHOICES).map((id) => `'${id}'`)
  const more = ids && ids.length > NAMED_CHOICES ? ` and ${ids.length - NAMED_CHOICES} more` : ''
  const choices =
    ids === undefined
      ? 'give the id of one of the connection’s properties'
      : ids.length === 0
        ? 'this connection has no property yet'
        : `choose one of ${named?.join(', ')}${more}`
  throw badRequest(`property_id is required: ${integration.name} ${why} per property; ${choices}`)
}
