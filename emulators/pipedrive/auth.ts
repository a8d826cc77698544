import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { WINDOW_MS } from './constants.js'
import { overLimit, unauthorized } from './errors.js'
import type { PipedriveState } from './state.js'

/**
 * An API token goes in the `x-api-token` header ("must be provided in the x-api-token header for all
 * requests": https://pipedrive.readme.io/docs/core-api-concepts-authentication); a missing or unknown one
 * is 401 `unauthorized access`.
 */
function tokenOf(state: PipedriveState, request: FastifyRequest): { token: string; oauth: boolean } {
  const header = request.headers['x-api-token']
  const token = Array.isArray(header) ? header[0] : header
  if (token && state.apiTokens.has(token)) return { token, oauth: false }
  // An OAuth access token goes as `Authorization: Bearer` (https://pipedrive.readme.io/docs/marketplace-oauth-authorization, step 4); it lasts an hour.
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
  const access = bearer ? state.accessTokens.get(bearer) : undefined
  if (bearer && access && access.expiresAt > Date.now()) return { token: bearer, oauth: true }
  throw unauthorized()
}

/**
 * Requests per token per rolling 2-second window, with `x-ratelimit-limit`, `x-ratelimit-remaining` and
 * `x-ratelimit-reset` (seconds until the window resets) on every answer, and a 429 past the limit
 * (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting). The daily token budget is not modelled.
 */
function limit(state: PipedriveState, token: string, oauth: boolean, reply: FastifyReply): void {
  const now = Date.now()
  const times = (state.calls.get(token) ?? []).filter((t) => t > now - WINDOW_MS)
  // OAuth tokens get four times an API token's burst on every plan (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting, its tables).
  const max = state.options.burst * (oauth ? 4 : 1)
  const allowed = times.length < max
  if (allowed) times.push(now)
  state.calls.set(token, times)
  const reset = Math.max(1, Math.ceil(((times[0] ?? now) + WINDOW_MS - now) / 1000))
  const headers = {
    'x-ratelimit-limit': String(max),
    'x-ratelimit-remaining': String(Math.max(0, max - times.length)),
    'x-ratelimit-reset': String(reset),
  }
  if (!allowed) throw overLimit(headers)
  reply.headers(headers)
}

export function installPipedriveAuth(app: FastifyInstance, state: PipedriveState): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.url.startsWith('/api/')) return
    const { token, oauth } = tokenOf(state, request)
    limit(state, token, oauth, reply)
  })
}
