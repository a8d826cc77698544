import { request } from 'undici'
import { providerAgent } from '../../integrations/http-client.js'
import { parseTokenResponse, TokenEndpointError, type TokenSet } from './token-set.js'

/** The OAuth client an exchange or refresh authenticates as. */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret?: string
}

async function postForm(
  url: string,
  form: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
): Promise<{ status: number; body: unknown }> {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(form)) if (v !== undefined) params.set(k, v)
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: params.toString(),
      dispatcher: providerAgent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
    const text = await res.body.text()
    let body: unknown = text
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      // Some providers answer errors as HTML or plain text; the status still tells what happened.
    }
    return { status: res.statusCode, body }
  } catch (err) {
    throw new TokenEndpointError(0, 'unreachable', (err as { code?: string }).code ?? (err as Error).message)
  }
}

/**
 * Token endpoint calls. Client credentials go in the body (client_secret_post), which Google, PostHog
 * and most providers accept.
 */
export class TokenClient {
  constructor(private readonly timeoutMs: number) {}

  async exchangeCode(
    tokenUrl: string,
    client: ClientCredentials,
    p: { code: string; redirectUri: string; codeVerifier?: string },
  ): Promise<TokenSet> {
    const res = await postForm(
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
