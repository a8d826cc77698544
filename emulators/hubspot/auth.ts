import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { wallIso } from '../kit/zones.js'
import { ACCOUNT_TIME_ZONE, TEN_SECONDS_MS } from './constants.js'
import { HubspotHttpError, rateLimited } from './errors.js'
import type { HubspotState } from './state.js'

/** The token a request authenticated with, and whether it is a private app's (for the daily headers). */
interface Caller {
  readonly token: string
  readonly privateApp: boolean
  readonly scopes?: readonly string[]
}

const callers = new WeakMap<FastifyRequest, Caller>()

export function callerOf(request: FastifyRequest): Caller | undefined {
  return callers.get(request)
}

/**
 * `Authorization: Bearer <token>`, a private app token or an OAuth access token
 * (https://developers.hubspot.com/docs/guides/apps/authentication/intro-to-auth). A missing or unknown one
 * is 401 INVALID_AUTHENTICATION, an expired OAuth token 401 EXPIRED_AUTHENTICATION
 * (https://developers.hubspot.com/docs/api/error-handling).
 */
function authenticate(state: HubspotState, request: FastifyRequest): Caller {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
  const token = match?.[1]
  if (token && state.privateAppTokens.has(token)) return { token, privateApp: true }
  const access = token ? state.accessTokens.get(token) : undefined
  if (!token || !access) {
    throw new HubspotHttpError(
      401,
      'INVALID_AUTHENTICATION',
      'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
    )
  }
  if (access.expiresAt <= Date.now()) {
    const ago = Math.max(1, Math.round((Date.now() - access.expiresAt) / 1000))
    throw new HubspotHttpError(
      401,
      'EXPIRED_AUTHENTICATION',
      `The OAuth token used to make this call expired ${ago} second(s) ago.`,
    )
  }
  return { token, privateApp: false, scopes: access.scopes }
}

/** Requests within `windowMs` before now, the oldest first; records this one when under `max`. */
function take(
  log: Map<string, number[]>,
  token: string,
  windowMs: number,
  max: number,
): { ok: boolean; used: number } {
  const now = Date.now()
  const times = (log.get(token) ?? []).filter((t) => t > now - windowMs)
  if (times.length >= max) {
    log.set(token, times)
    return { ok: false, used: times.length }
  }
  times.push(now)
  log.set(token, times)
  return { ok: true, used: times.length }
}

/**
 * Every response but a search's carries the ten-second window's `X-HubSpot-RateLimit-Max`, `-Remaining` and
 * `-Interval-Milliseconds`; the daily ones only for private apps, not OAuth tokens (usage guidelines,
 * "Rate limit headers"; search endpoints are listed there as answering without them).
 */
function limit(state: HubspotState, request: FastifyRequest, reply: FastifyReply, caller: Caller): void {
  const search = request.method === 'POST' && request.url.split('?')[0]?.endsWith('/search')
  if (search) {
    // Search has its own per-second limit, answered as a 429 without rate-limit headers. It is counted per
    // account, every token of the portal together: "The search endpoints are rate limited to five requests
    // per second per account" (https://developers.hubspot.com/docs/api-reference/search/guide, "Limits");
    // the figure stays the changelog's four (constants.ts), the stricter of the two.
    if (!take(state.searches, `portal:${state.options.portalId}`, 1000, state.options.searchPerSecond).ok)
      throw rateLimited('SECONDLY')
    return
  }
  const max = state.options.tenSecondlyLimit
  const { ok, used } = take(state.calls, caller.token, TEN_SECONDS_MS, max)
  const headers: Record<string, string> = {
    'x-hubspot-ratelimit-max': String(max),
    'x-hubspot-ratelimit-remaining': String(Math.max(0, max - used)),
    'x-hubspot-ratelimit-interval-milliseconds': String(TEN_SECONDS_MS),
  }
  if (caller.privateApp) {
    // Counted per day of the account's time zone: the limit resets at its midnight (usage guidelines).
    const key = `${caller.token}|${wallIso(Date.now(), ACCOUNT_TIME_ZONE).slice(0, 10)}`
    const day = (state.daily.get(key) ?? 0) + 1
    state.daily.set(key, day)
    const dailyLimit = state.dailyLimit
    headers['x-hubspot-ratelimit-daily'] = String(dailyLimit)
    headers['x-hubspot-ratelimit-daily-remaining'] = String(Math.max(0, dailyLimit - day))
    // A spent day is a 429 with policyName DAILY; its ten-second headers still name a 10 s window, which
    // clears nothing (usage guidelines, "Rate limit headers" and the 429 body's `policyName`).
    if (day > dailyLimit) throw rateLimited('DAILY', headers)
  }
  if (!ok) throw rateLimited('TEN_SECONDLY_ROLLING', headers)
  reply.headers(headers)
}

export function installHubspotAuth(app: FastifyInstance, state: HubspotState): void {
  app.addHook('preHandler', async (request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    if (!path.startsWith('/crm/') && !path.startsWith('/account-info/')) return
    const caller = authenticate(state, request)
    callers.set(request, caller)
    limit(state, request, reply, caller)
  })
}

/**
 * An OAuth token needs the endpoint's scope (HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json, `security`: `crm.objects.contacts.read` or
 * `.write`); without it HubSpot answers 403 MISSING_SCOPES naming the scopes required
 * (https://developers.hubspot.com/docs/api/error-handling). Private app tokens here hold every scope.
 */
export function requireScope(request: FastifyRequest, scope: string): void {
  const caller = callerOf(request)
  if (!caller?.scopes || caller.scopes.includes(scope)) return
  throw new HubspotHttpError(
    403,
    'MISSING_SCOPES',
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
    {
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredGranularScopes: [scope] },
        },
      ],
    },
  )
}
