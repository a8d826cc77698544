import { createHash } from 'node:crypto'
import { parseTokenResponse, TokenEndpointError, tokenLifetimeOf } from '../authorization/tokens/token-set.js'
import { ProviderError } from '../errors.js'
import type { AuthHeaderSource } from '../integrations/http-client.js'
import type { ClientCredentialsGrant, Credentials } from '../integrations/types.js'
import { type ProviderTransport, tokenRequestSlot } from '../outbound/index.js'

/** A token is fetched again this long before it expires, so a request never carries one about to lapse. */
const EXPIRY_MARGIN_MS = 60_000

interface CachedToken {
  readonly accessToken: string
  readonly expiresAt: number
}

/**
 * Tokens by client (token address, client id, a digest of the secret, form): shared by every connection
 * and request of the process holding the same client, in memory only (a token is derived from the stored
 * secret, so it never needs storing). Bounded: the oldest entry leaves first.
 */
const cache = new Map<string, CachedToken>()
const inflight = new Map<string, Promise<CachedToken>>()
const MAX_CACHED = 10_000

/** When a token answer says the token expires: `expires_at` (an instant) or `expires_in` (seconds). */
function expiryOf(body: unknown, now: number, fallbackMs: number): number {
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {}
  if (typeof b.expires_at === 'string') {
    const at = Date.parse(b.expires_at)
    if (!Number.isNaN(at)) return at
  }
  // Bounded as an OAuth token answer's is: 0, a negative or a past-ten-years lifetime is none given.
  const seconds = tokenLifetimeOf(b.expires_in)
  return seconds === undefined ? now + fallbackMs : now + seconds * 1000
}

/**
 * A connection's bearer token from an OAuth 2.0 client credentials grant, asked through the provider
 * transport (so the address policy and limits apply to the token call too). A refused client is a
 * ProviderError 401, which marks the connection unhealthy and asks for new credentials like any key the
 * provider stopped accepting; nothing of the secret reaches an error.
 */
export class ClientCredentialsAuth implements AuthHeaderSource {
  private readonly key: string
  /**
   * A passthrough 401 drops the token too: a token revoked or rotated before its stated expiry would
   * otherwise fail every passthrough call until then. It costs the next call one token request, and
   * nothing stored changes (the grant has no refresh token to rotate).
   */
  readonly renewsAfterRelayedRefusal = true

  constructor(
    private readonly grant: ClientCredentialsGrant,
    private readonly credentials: Credentials,
    private readonly transport: ProviderTransport,
    private readonly timeoutMs: number,
    /** The workspace whose provider calls the grant's token request counts against (tokenRequestSlot). */
    private readonly workspaceId?: string,
  ) {
    const client = grant.client(credentials)
    this.key = createHash('sha256')
      .update(
        JSON.stringify([
          grant.tokenUrl(credentials),
          client.id,
          client.secret,
          grant.form?.(credentials) ?? {},
        ]),
      )
      .digest('hex')
  }

  async headers(): Promise<Readonly<Record<string, string>>> {
    const hit = cache.get(this.key)
    const token = hit && hit.expiresAt - EXPIRY_MARGIN_MS > Date.now() ? hit : await this.fetchOnce()
    return { authorization: `Bearer ${token.accessToken}` }
  }

  async rejected(used: Readonly<Record<string, string>>): Promise<boolean> {
    const hit = cache.get(this.key)
    // Another request already replaced the refused token: retry with the new one.
    if (hit && `Bearer ${hit.accessToken}` !== used.authorization) return true
    cache.delete(this.key)
    return true
  }

  private fetchOnce(): Promise<CachedToken> {
    const running = inflight.get(this.key)
    if (running) return running
    const started = this.fetchToken().finally(() => inflight.delete(this.key))
    inflight.set(this.key, started)
    return started
  }

  private async fetchToken(): Promise<CachedToken> {
    const name = this.grant.providerName
    const client = this.grant.client(this.credentials)
    const form = new URLSearchParams({ grant_type: 'client_credentials' })
    for (const [k, v] of Object.entries(this.grant.form?.(this.credentials) ?? {}))
      if (v !== undefined && v !== '') form.set(k, v)
    // Transport failures (unreachable, refused by the address policy or the workspace's bound) pass on as they are.
    const res = await this.transport.fetch(this.grant.tokenUrl(this.credentials), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
      timeoutMs: this.timeoutMs,
      smallAnswer: true,
      ...tokenRequestSlot(this.workspaceId, this.timeoutMs),
    })
    const status = res.status
    let body: unknown
    try {
      const text = res.body.toString('utf8')
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      // A refusal may come as HTML or text: its status still says what happened.
      body = undefined
    }
    const now = Date.now()
    try {
      const tokens = parseTokenResponse(status, body)
      const token = {
        accessToken: tokens.access_token,
        expiresAt: expiryOf(body, now, this.grant.defaultLifetimeMs),
      }
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string)
      cache.set(this.key, token)
      return token
    } catch (err) {
      if (!(err instanceof TokenEndpointError)) throw err
      // 400/401 from a token endpoint means the client or its parameters are refused (RFC 6749 5.2):
      // the connection's credentials must change, as with a revoked key.
      if (status === 400 || status === 401 || status === 403) {
        throw new ProviderError(
          401,
          `${name} refused the connection's client credentials (${err.publicReason})`,
        )
      }
      throw new ProviderError(
        status >= 400 ? status : 502,
        `${name}'s token endpoint answered with no token (${err.publicReason})`,
      )
    }
  }
}
