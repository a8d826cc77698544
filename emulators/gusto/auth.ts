import type { FastifyInstance, FastifyRequest } from 'fastify'
import { RATE_LIMIT, RATE_WINDOW_SECONDS } from './constants.js'
import { GustoHttpError } from './errors.js'
import type { GustoOAuth } from './oauth.js'

export interface Caller {
  readonly scopes: readonly string[]
  readonly company: string
}

const callers = new WeakMap<FastifyRequest, Caller>()

/** A fixed window per grant that opens with its first call, as Gusto describes its rolling window. */
class RateWindows {
  private readonly windows = new Map<string, { opened: number; count: number }>()

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  take(grant: string, now: number) {
    let w = this.windows.get(grant)
    if (!w || now - w.opened >= this.windowMs) {
      w = { opened: now, count: 0 }
      this.windows.set(grant, w)
    }
    w.count++
    const reset = w.opened + this.windowMs
    return { allowed: w.count <= this.limit, remaining: Math.max(0, this.limit - w.count), reset }
  }
}

export interface ApiAuthOptions {
  readonly rateLimit?: number
}

/**
 * Every `/v1/` call takes `Authorization: Bearer <company access token>`; a missing, unknown, revoked or
 * expired one is 401 ("If an access token is expired you will receive 401 Unauthorized errors",
 * https://docs.gusto.com/embedded-payroll/docs/company-access-tokens), with RFC 6750's WWW-Authenticate. Each grant
 * may make 200 calls in a 60-second window that opens with its first call; past that, 429 with Retry-After
 * (seconds to the window's end); X-RateLimit-Limit, -Remaining and -Reset on every answer
 * (https://docs.gusto.com/embedded-payroll/docs/rate-limits).
 */
export function installApiAuth(app: FastifyInstance, oauth: GustoOAuth, options: ApiAuthOptions = {}): void {
  const limit = options.rateLimit ?? RATE_LIMIT
  const windows = new RateWindows(limit, RATE_WINDOW_SECONDS * 1000)
  app.addHook('preHandler', async (request, reply) => {
    if (!request.url.startsWith('/v1/')) return
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
    const checked = match ? oauth.check(match[1] as string) : { ok: false as const }
    if (!checked.ok) {
      throw new GustoHttpError(401, 'unauthorized', 'The access token is invalid or has expired', 'request', {
        'www-authenticate': 'Bearer realm="Doorkeeper", error="invalid_token"',
      })
    }
    const now = oauth.now()
    const window = windows.take(checked.grant, now)
    const headers = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(window.remaining),
      'x-ratelimit-reset': new Date(window.reset).toISOString(),
    }
    reply.headers(headers)
    if (!window.allowed) {
      throw new GustoHttpError(429, 'rate_limit_exceeded', 'Too Many Requests', 'request', {
        ...headers,
        'retry-after': String(Math.max(1, Math.ceil((window.reset - now) / 1000))),
      })
    }
    callers.set(request, { scopes: checked.scopes, company: checked.company })
  })
}

/** The authenticated caller of a `/v1/` request. */
export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request)
  if (!caller) throw new GustoHttpError(401, 'unauthorized', 'The access token is invalid or has expired')
  return caller
}

/**
 * The scope an endpoint needs (each operation's `scope:` in Gusto's OpenAPI): a call outside the app's
 * scopes is refused with 403 Forbidden (https://docs.gusto.com/embedded-payroll/docs/scopes).
 */
export function requireScope(request: FastifyRequest, scope: string): Caller {
  const caller = callerOf(request)
  if (!caller.scopes.includes(scope)) {
    throw new GustoHttpError(403, 'forbidden', `This application is not authorized for the ${scope} scope`)
  }
  return caller
}

/** A token reaches its one company only; any other company is as unknown as a missing one. */
export function requireCompany(caller: Caller, company: string): void {
  if (company !== caller.company) {
    throw new GustoHttpError(404, 'not_found', 'The requested resource was not found.')
  }
}
