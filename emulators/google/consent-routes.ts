import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { installFormParser } from '../kit/index.js'
import type { GoogleTokenAuthority } from './token-authority.js'

/** Where accounts.google.com serves the authorization (consent) page (https://developers.google.com/identity/protocols/oauth2/web-server#creatingclient). */
export const GOOGLE_AUTHORIZE_PATH = '/o/oauth2/v2/auth'

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Google shows its own error page (no redirect) when the client or redirect_uri cannot be trusted. */
function errorPage(reply: FastifyReply, error: string, detail: string): FastifyReply {
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><title>Error 400: ${esc(error)}</title><h1>Access blocked: authorization error</h1><p>Error 400: ${esc(error)}</p><p>${esc(detail)}</p>`,
    )
}

type Params = Readonly<Record<string, string | undefined>>

function paramsOf(request: FastifyRequest): Params {
  const out: Record<string, string> = {}
  const merged = { ...(request.query as object), ...((request.body as object) ?? {}) }
  for (const [k, v] of Object.entries(merged)) if (typeof v === 'string') out[k] = v
  return out
}

/**
 * The checks Google makes before it shows a consent screen: a known client, an exact registered
 * redirect_uri, `response_type=code`, at least one scope, a PKCE method of S256 or plain
 * (https://developers.google.com/identity/protocols/oauth2/web-server#creatingclient, parameters; #authorization-errors for redirect_uri_mismatch and
 * invalid_client shown on Google's own page). The page's wording is ours.
 */
function checkRequest(
  authority: GoogleTokenAuthority,
  p: Params,
): { error: string; detail: string } | undefined {
  const client = p.client_id ? authority.client(p.client_id) : undefined
  if (!client) return { error: 'invalid_client', detail: 'The OAuth client was not found.' }
  if (!p.redirect_uri || !client.redirectUris.includes(p.redirect_uri)) {
    return {
      error: 'redirect_uri_mismatch',
      detail: `You can't sign in to this app because it doesn't comply with Google's OAuth 2.0 policy. redirect_uri=${p.redirect_uri ?? ''}`,
    }
  }
  if (p.response_type !== 'code')
    return { error: 'unsupported_response_type', detail: 'response_type must be code' }
  if (!p.scope?.trim()) return { error: 'invalid_request', detail: 'Missing required parameter: scope' }
  if (p.code_challenge && p.code_challenge_method && !['S256', 'plain'].includes(p.code_challenge_method)) {
    return { error: 'invalid_request', detail: 'Invalid code_challenge_method' }
  }
  return undefined
}

function back(p: Params, params: Record<string, string>): string {
  const url = new URL(p.redirect_uri!)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  if (p.state !== undefined) url.searchParams.set('state', p.state)
  return url.toString()
}

/**
 * `GET /o/oauth2/v2/auth`: the consent screen, with Allow and Cancel; `POST` is the user's decision.
 * Allow redirects to the client with `code`, `scope` and `state`, a single-use code bound to the client,
 * redirect_uri and PKCE challenge; Cancel redirects with `error=access_denied`
 * (https://developers.google.com/identity/protocols/oauth2/web-server#handlingresponse).
 */
export function registerGoogleConsentRoutes(app: FastifyInstance, authority: GoogleTokenAuthority): void {
  installFormParser(app)
  app.get(GOOGLE_AUTHORIZE_PATH, async (request, reply) => {
    const p = paramsOf(request)
    const bad = checkRequest(authority, p)
    if (bad) return errorPage(reply, bad.error, bad.detail)
    const hidden = Object.entries(p)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v ?? '')}">`)
      .join('')
    const scopes = p
      .scope!.split(' ')
      .map((s) => `<li>${esc(s)}</li>`)
      .join('')
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Google Accounts</title>
<style>body{font:15px system-ui,sans-serif;background:#f0f4f9;display:flex;justify-content:center;padding-top:60px}
main{background:#fff;border-radius:28px;padding:36px;width:440px}h1{font-weight:400;font-size:24px}
button{border-radius:20px;padding:10px 24px;font:inherit;cursor:pointer;border:1px solid #747775;background:#fff}
button[value=allow]{background:#0b57d0;color:#fff;border-color:#0b57d0}.row{display:flex;gap:12px;justify-content:flex-end}</style></head>
<body><main><h1>Emulated Google wants to give access to ${esc(p.client_id!)}</h1>
<p>Signed in as user-1@example.com. This will allow the app to:</p><ul>${scopes}</ul>
<form method="post" action="${GOOGLE_AUTHORIZE_PATH}">${hidden}
<div class="row"><button type="submit" name="decision" value="deny" id="deny">Cancel</button>
<button type="submit" name="decision" value="allow" id="allow">Allow</button></div></form></main></body></html>`)
  })

  app.post(GOOGLE_AUTHORIZE_PATH, async (request, reply) => {
    const p = paramsOf(request)
    const bad = checkRequest(authority, p)
    if (bad) return errorPage(reply, bad.error, bad.detail)
    if (p.decision !== 'allow') return reply.redirect(back(p, { error: 'access_denied' }), 302)
    const scopes = p.scope!.split(' ').filter(Boolean)
    const code = authority.issueCode({
      clientId: p.client_id!,
      scopes,
      redirectUri: p.redirect_uri!,
      ...(p.login_hint ? { subject: p.login_hint } : {}),
      ...(p.code_challenge ? { codeChallenge: p.code_challenge } : {}),
      ...(p.code_challenge_method === 'plain' || p.code_challenge_method === 'S256'
        ? { codeChallengeMethod: p.code_challenge_method }
        : p.code_challenge
          ? { codeChallengeMethod: 'plain' as const }
          : {}),
    })
    return reply.redirect(back(p, { code, scope: scopes.join(' ') }), 302)
  })
}
