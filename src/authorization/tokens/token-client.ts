import { ProviderUnreachableError } from '../../errors.js'
import type { ProviderTransport } from '../../outbound/index.js'
import { parseTokenResponse, TokenEndpointError, type TokenSet } from './token-set.js'

/** The OAuth client an exchange or refresh authenticates as. */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret?: string
}

async function postForm(
  transport: ProviderTransport,
  url: string,
  form: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
): Promise<{ status: number; body: unknown }> {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(form)) if (v !== undefined) params.set(k, v)
  try {
    const res = await transport.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: params.toString(),
      timeoutMs,
    })
    const text = res.body.toString('utf8')
    let body: unknown = text
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      // Some providers answer errors as HTML or plain text; the status still tells what happened.
    }
    return { status: res.status, body }
  } catch (err) {
    const reason = err instanceof ProviderUnreachableError ? err.reason : (err as Error).message
    throw new TokenEndpointError(0, 'unreachable', reason)
  }
}

/**
 * Token endpoint calls. Client credentials go in the body (client_secret_post), which Google, PostHog
 * and most providers accept.
 */
export class TokenClient {
  constructor(
    private readonly timeoutMs: number,
    private readonly transport: ProviderTransport,
  ) {}

  async exchangeCode(
    tokenUrl: string,
    client: ClientCredentials,
    p: { code: string; redirectUri: string; codeVerifier?: string },
  ): Promise<TokenSet> {
    const res = await postForm(
      this.transport,
      tokenUrl,
      {
        grant_type: 'authorization_code',
        code: p.code,
        redirect_uri: p.redirectUri,
        client_id: client.clientId,
        client_secret: client.clientSecret,
        code_verifier: p.codeVerifier,
      },
      this.timeoutMs,
    )
    return parseTokenResponse(res.status, res.body)
  }

  async refresh(tokenUrl: string, client: ClientCredentials, refreshToken: string): Promise<TokenSet> {
    const res = await postForm(
      this.transport,
      tokenUrl,
      {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      },
      this.timeoutMs,
    )
    return parseTokenResponse(res.status, res.body)
  }

  /** RFC 7009. Answers whether the provider confirmed; a token it no longer knows counts as revoked. */
  async revoke(revokeUrl: string, client: ClientCredentials | undefined, token: string): Promise<boolean> {
    const res = await postForm(
      this.transport,
      revokeUrl,
      { token, client_id: client?.clientId, client_secret: client?.clientSecret },
      this.timeoutMs,
    )
    return (
      res.status === 200 ||
      (res.status === 400 && (res.body as { error?: string })?.error === 'invalid_token')
    )
  }
}
