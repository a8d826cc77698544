import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  DAILY_POST_PUT_REQUESTS,
  OAUTH_SCOPES,
  TOKEN_COST,
  UNLISTED_TOKEN_COST,
  WINDOW_MS,
} from './constants.js'
import { overLimit, scopeMismatch, unauthorized } from './errors.js'
import type { PipedriveState } from './state.js'

/**
 * An API token goes in the `x-api-token` header ("must be provided in the x-api-token header for all
 * requests": https://pipedrive.readme.io/docs/core-api-concepts-authentication); a missing or unknown one
 * is 401 `unauthorized access`.
 */
function tokenOf(
  state: PipedriveState,
  request: FastifyRequest,
): { token: string; oauth: boolean; scopes?: readonly string[] } {
  const header = request.headers['x-api-token']
  const token = Array.isArray(header) ? header[0] : header
  if (token && state.apiTokens.has(token)) return { token, oauth: false }
  // An OAuth access token goes as `Authorization: Bearer` (https://pipedrive.readme.io/docs/marketplace-oauth-authorization, step 4); it lasts an hour.
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1]
  const access = bearer ? state.accessTokens.get(bearer) : undefined
  if (bearer && access && access.expiresAt > Date.now())
    return { token: bearer, oauth: true, scopes: access.scopes }
  throw unauthorized()
}

/** Takes one request from a token's rolling 2-second window of at most `max`; its `x-ratelimit-*` headers. */
function takeFromWindow(state: PipedriveState, key: string, max: number) {
  const now = Date.now()
  const times = (state.calls.get(key) ?? []).filter((t) => t > now - WINDOW_MS)
  const allowed = times.length < max
  if (allowed) times.push(now)
  state.calls.set(key, times)
  const reset = Math.max(1, Math.ceil(((times[0] ?? now) + WINDOW_MS - now) / 1000))
  const headers = {
    'x-ratelimit-limit': String(max),
    'x-ratelimit-remaining': String(Math.max(0, max - times.length)),
    'x-ratelimit-reset': String(reset),
  }
  return { allowed, headers }
}

/**
 * Requests per token per rolling 2-second window, with `x-ratelimit-limit`, `x-ratelimit-remaining` and
 * `x-ratelimit-reset` (seconds until the window resets) on every answer, and a 429 past the limit
 * (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting); then the company's daily token budget.
 * A search has its own window: "The Search API has unique burst limits that are consistent across all
 * authentication types and subscription plans": 10 requests per 2 seconds on every plan (same page, "Limits").
 * Whether a search also counts in the token's general window, and which window's headers it answers, is not
 * documented: here a search counts in its own window only and answers its headers (ours).
 */
function limit(
  state: PipedriveState,
  request: FastifyRequest,
  token: string,
  oauth: boolean,
  reply: FastifyReply,
): void {
  const search = request.routeOptions.url?.endsWith('/search') === true
  // OAuth tokens get four times an API token's burst on every plan (https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting, its tables).
  const window = search
    ? takeFromWindow(state, `${token}|search`, state.options.searchBurst)
    : takeFromWindow(state, token, state.options.burst * (oauth ? 4 : 1))
  const headers: Record<string, string> = { ...window.headers }
  if (!oauth) headers['x-daily-requests-left'] = String(postPutLeft(state, request, token, window.allowed))
  if (!window.allowed) throw overLimit(headers)
  spend(state, request, headers)
  reply.headers(headers)
}

/**
 * An API token's POST and PUT requests left for the UTC day (DAILY_POST_PUT_REQUESTS), this one counted when
 * it is one and the burst window let it through (ours: whether a refused request counts is not documented).
 */
function postPutLeft(
  state: PipedriveState,
  request: FastifyRequest,
  token: string,
  allowed: boolean,
): number {
  const key = `${new Date().toISOString().slice(0, 10)}|${token}`
  let made = state.postPutRequests.get(key) ?? 0
  if (allowed && (request.method === 'POST' || request.method === 'PUT')) {
    made += 1
    state.postPutRequests.set(key, made)
  }
  return Math.max(0, DAILY_POST_PUT_REQUESTS - made)
}

/** What a request costs from the daily budget: its endpoint's `x-token-cost` (see constants.ts). */
function costOf(request: FastifyRequest): number {
  const route = request.routeOptions.url ?? request.url.split('?')[0] ?? ''
  return TOKEN_COST[`${request.method} ${route}`] ?? UNLISTED_TOKEN_COST
}

/**
 * Spends the request's cost from the company's budget for the UTC day; once spent, every request is a 429 until
 * the next day ("Once the daily budget is fully depleted, all further API requests will be rejected with a 429
 * (Too Many Requests) status code. These requests will remain blocked until the budget resets the following
 * day": https://pipedrive.readme.io/docs/core-api-concepts-rate-limiting, "Exceeding the tokens budget").
 * Pipedrive documents no body, header or code of its own for that refusal: here it is the one 429 body Pipedrive
 * names ("Request over limit", OAuth status codes page) with the headers every answer carries, the burst
 * window's as they stand with this request counted in it (ours: whether a refused request counts is not
 * documented). So its `x-ratelimit-remaining` is above 0 unless the window was full too, which is how
 * Unigate's connector tells it from a burst refusal (src/integrations/pipedrive/definition.ts). No
 * `retry-after`: none is documented, and the reset's time zone is not named.
 */
function spend(state: PipedriveState, request: FastifyRequest, headers: Record<string, string>): void {
  const day = new Date().toISOString().slice(0, 10)
  const spent = state.spentTokens.get(day) ?? 0
  const cost = costOf(request)
  if (spent + cost > state.dailyTokenBudget) throw overLimit(headers)
  state.spentTokens.set(day, spent + cost)
}

export function installPipedriveAuth(app: FastifyInstance, state: PipedriveState): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.url.startsWith('/api/')) return
    const { token, oauth, scopes } = tokenOf(state, request)
    // "access_token is bound to the scopes your app asked permissions for from the user, so requests will be
    // denied if they will be executed against the API endpoints that are not in these scopes"
    // (https://pipedrive.readme.io/docs/marketplace-oauth-authorization, step 6). Checked before the burst
    // window and the budget (ours: the order is not documented).
    const needed = OAUTH_SCOPES[`${request.method} ${request.routeOptions.url ?? ''}`]
    if (scopes && needed && !needed.some((s) => scopes.includes(s))) throw scopeMismatch()
    limit(state, request, token, oauth, reply)
  })
}
