import type { FastifyInstance, FastifyRequest } from 'fastify'
import { FathomHttpError, notFound } from './errors.js'
import type { FathomState } from './state.js'

/**
 * Token abilities as Fathom names them: `*` (full account), `all-sites-readonly`, `read:{site_id}`,
 * `manage:{site_id}` (https://usefathom.com/api/v1/account "Get token", https://usefathom.com/api
 * "Create a token": Admin, read only (all sites), or site-specific).
 */
export type Abilities = readonly string[]

const abilitiesOf = new WeakMap<FastifyRequest, Abilities>()

/**
 * Every `/v1/` call takes `Authorization: Bearer <token>`; a missing or unknown one is 401
 * (https://usefathom.com/api, "Authentication"; https://usefathom.com/api/v1/errors).
 */
export function installFathomAuth(app: FastifyInstance, state: FathomState): void {
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith('/v1/')) return
    const match = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '')
    const abilities = match ? state.tokens.get(match[1] as string) : undefined
    if (!abilities) throw new FathomHttpError(401, 'Unauthenticated.')
    abilitiesOf.set(request, abilities)
  })
}

export function abilities(request: FastifyRequest): Abilities {
  return abilitiesOf.get(request) ?? []
}

/**
 * A token lacking the ability for an action is 400 (https://usefathom.com/api/v1/errors: "a token that
 * lacks permission for the action"); the docs' example message is cut short, so this wording is ours.
 */
const lacks = () => new FathomHttpError(400, "This token doesn't have permission to perform this action.")

/** `GET /v1/sites` and creating a site: "all-sites-readonly or full account access" (usefathom.com/api/v1/sites). */
export function requireAllSites(request: FastifyRequest, write: boolean): void {
  const a = abilities(request)
  if (a.includes('*') || (!write && a.includes('all-sites-readonly'))) return
  throw lacks()
}

/**
 * One site: read needs `all-sites-readonly`, `read:{id}` or `manage:{id}`; changes need `manage:{id}`
 * (or `*`). A site the token cannot read is 404, as one that does not exist ("doesn't exist, or your
 * token doesn't have access to it", https://usefathom.com/api/v1/errors).
 */
export function requireSite(request: FastifyRequest, siteId: string, write: boolean): void {
  const a = abilities(request)
  if (a.includes('*') || a.includes(`manage:${siteId}`)) return
  const readable = a.includes('all-sites-readonly') || a.includes(`read:${siteId}`)
  if (!readable) throw notFound()
  if (write) throw lacks()
}
