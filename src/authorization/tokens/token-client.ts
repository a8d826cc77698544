import { ApiError, busyAnswer, ConnectionBusyError, ProviderUnreachableError } from '../../errors.js'
import { type ProviderTransport, tokenRequestSlot } from '../../outbound/index.js'
import { parseTokenResponse, TokenEndpointError, type TokenSet } from './token-set.js'

/** The OAuth client an exchange or refresh authenticates as. */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret?: string
  /**
   * How the client authenticates at the token endpoint (RFC 6749 section 2.3.1): its id and secret in the
   * form (the default), or as HTTP Basic (Pipedrive accepts only that).
   */
  readonly method?: 'client_secret_post' | 'client_secret_basic'
}

/**
 * The HTTP Basic credentials a client sends (RFC 6749 section 2.3.1: both parts form-encoded before base64):
 * also what to take out of a token endpoint's answer that quotes the Authorization header it refused.
 */
export function basicCredentialsOf(clientId: string, clientSecret: string | undefined): string {
  return Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret ?? '')}`).toString(
    'base64',
  )
}

/** The form's client fields, or an Authorization header, as the client's method says. */
function clientAuth(client: ClientCredentials | undefined): {
  form: Record<string, string | undefined>
  headers: Record<string, string>
} {
  if (!client) return { form: {}, headers: {} }
  if (client.method === 'client_secret_basic') {
    return {
      form: {},
      headers: { authorization: `Basic ${basicCredentialsOf(client.clientId, client.clientSecret)}` },
    }
  }
  return { form: { client_id: client.clientId, client_secret: client.clientSecret }, headers: {} }
}

/**
 * One form post to a token endpoint, counted against `workspaceId`'s provider calls (tokenRequestSlot). A
 * refusal by that bound is the API's 429, not the endpoint's failure: a refresh does not back off for it.
 */
async function postForm(
  transport: ProviderTransport,
  workspaceId: string,
  url: string,
  form: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; body: unknown }> {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(form)) if (v !== undefined) params.set(k, v)
  try {
    const res = await transport.fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...headers,
      },
      body: params.toString(),
      timeoutMs,
      smallAnswer: true,
      ...tokenRequestSlot(workspaceId, timeoutMs),
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
    if (err instanceof ConnectionBusyError) throw busyAnswer(err)
    // The slot's wait ran out (nothing was sent).
    if (err instanceof ApiError) throw err
    const reason = err instanceof ProviderUnreachableError ? err.reason : (err as Error).message
    throw new TokenEndpointError(0, 'unreachable', reason)
  }
}

/**
 * Token endpoint calls. Client credentials go in the body (client_secret_post), which Google, PostHog
 * and most providers accept, or as HTTP Basic when the client says so. `keep` names extra string fields
 * of the answer the connection keeps (Pipedrive's `api_domain`).
 */
export class TokenClient {
  constructor(
    private readonly timeoutMs: number,
    private readonly transport: ProviderTransport,
  ) {}

  /**
   * The longest one token request takes: its wait for one of its workspace's slots (tokenRequestSlot), then
   * its answer, headers and body (the transport's timeout for a small answer), each at most `timeoutMs`.
   */
  get longestMs(): number {
    return 2 * this.timeoutMs
  }

  async exchangeCode(
    workspaceId: string,
    tokenUrl: string,
    client: ClientCredentials,
    p: { code: string; redirectUri: string; codeVerifier?: string; keep?: readonly string[] },
  ): Promise<TokenSet> {
    const auth = clientAuth(client)
    const res = await postForm(
      this.transport,
      workspaceId,
      tokenUrl,
      {
        grant_type: 'authorization_code',
        code: p.code,
        redirect_uri: p.redirectUri,
        ...auth.form,
        code_verifier: p.codeVerifier,
      },
      this.timeoutMs,
      auth.headers,
    )
    return parseTokenResponse(res.status, res.body, p.keep)
  }

  async refresh(
    workspaceId: string,
    tokenUrl: string,
    client: ClientCredentials,
    refreshToken: string,
    keep: readonly string[] = [],
  ): Promise<TokenSet> {
    const auth = clientAuth(client)
    const res = await postForm(
      this.transport,
      workspaceId,
      tokenUrl,
      { grant_type: 'refresh_token', refresh_token: refreshToken, ...auth.form },
      this.timeoutMs,
      auth.headers,
    )
    return parseTokenResponse(res.status, res.body, keep)
  }

  /** RFC 7009. Answers whether the provider confirmed; a token it no longer knows counts as revoked. */
  async revoke(
    workspaceId: string,
    revokeUrl: string,
    client: ClientCredentials | undefined,
    token: string,
  ): Promise<boolean> {
    const auth = clientAuth(client)
    const res = await postForm(
      this.transport,
      workspaceId,
      revokeUrl,
      { token, ...auth.form },
      this.timeoutMs,
      auth.headers,
    )
    return (
      res.status === 200 ||
      (res.status === 400 && (res.body as { error?: string })?.error === 'invalid_token')
    )
  }
}
