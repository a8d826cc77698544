import type { FastifyInstance, FastifyRequest } from 'fastify'
import { forbiddenScope, tooMany, unauthorized } from './errors.js'
import { CONFIDENTIAL_SCOPE, scopesFor } from './scopes.js'
import type { LeverState } from './state.js'

/**
 * "Lever uses HTTP Basic Auth ... your API key as the username, leaving the password blank"
 * (https://hire.lever.co/developer/documentation#authentication); anything else is 401.
 */
function basicUsername(header: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(header ?? '')
  if (!match) return undefined
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? undefined : decoded.slice(0, colon)
}

/**
 * A known API key by Basic auth, or an OAuth access token as a bearer ("Authorization: Bearer", same
 * page, OAuth); the credential the rate limit counts against, or undefined.
 */
function credentialOf(header: string | undefined, state: LeverState): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/.exec(header ?? '')?.[1]
  if (bearer !== undefined) return state.accessTokens.has(bearer) ? `bearer:${bearer}` : undefined
  const key = basicUsername(header)
  return key !== undefined && state.keys.has(key) ? key : undefined
}

const credentialOfRequest = new WeakMap<FastifyRequest, string>()

/** The credential (API key, or `bearer:<token>`) a request authenticated with, set by the auth hook. */
export function requestCredential(request: FastifyRequest): string {
  return credentialOfRequest.get(request) ?? ''
}

/** The scopes of the OAuth token a request carries; undefined for an API key, or a token given with every scope. */
function scopesOfRequest(request: FastifyRequest, state: LeverState): readonly string[] | undefined {
  const credential = requestCredential(request)
  return credential.startsWith('bearer:')
    ? state.tokenScopes.get(credential.slice('bearer:'.length))
    : undefined
}

/**
 * True when the request may see confidential records: an API key created with "Allow access to confidential
 * data" (https://help.lever.co/hc/en-us/articles/360042364412), or a token granted `confidential:access:admin`
 * ("Access all confidential data", #scopes).
 */
export function seesConfidential(request: FastifyRequest, state: LeverState): boolean {
  if (state.keysWithoutConfidentialAccess.has(requestCredential(request))) return false
  const scopes = scopesOfRequest(request, state)
  return scopes === undefined || scopes.includes(CONFIDENTIAL_SCOPE)
}

/**
 * Auth, then a token bucket per key: `ratePerSecond` tokens a second up to `burst`; an empty bucket is 429
 * (https://hire.lever.co/developer/documentation#rate-limits). Lever documents no rate-limit or Retry-After
 * headers, so none are sent.
 */
export function installLeverAuth(app: FastifyInstance, state: LeverState): void {
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith('/v1/')) return
    const key = credentialOf(request.headers.authorization, state)
    if (key === undefined) throw unauthorized()
    const now = Date.now()
    const bucket = state.buckets.get(key) ?? { tokens: state.burst, at: now }
    bucket.tokens = Math.min(state.burst, bucket.tokens + ((now - bucket.at) / 1000) * state.ratePerSecond)
    bucket.at = now
    state.buckets.set(key, bucket)
    if (bucket.tokens < 1) throw tooMany()
    bucket.tokens -= 1
    credentialOfRequest.set(request, key)
    // A token lacking the scope the endpoint needs is refused (scopes.ts); an API key is not scoped.
    const granted = scopesOfRequest(request, state)
    const needed = scopesFor(request.method, request.routeOptions.url)
    if (granted && needed && !needed.some((s) => granted.includes(s))) throw forbiddenScope(needed)
  })
}
