import type { FastifyInstance, FastifyReply } from 'fastify'
import { formOf, installFormParser } from '../../kit/index.js'
import type { Form, PosthogOAuthAuthority } from './authority.js'
import { redirectedToSlash } from './form.js'

export const POSTHOG_AUTHORIZE_PATH = '/oauth/authorize/'

/** OpenID scopes plus `<object>:read|write`, PostHog's scope grammar (PostHog/posthog@master:posthog/scopes.py). */
const SCOPE = /^(openid|profile|email|\*|[a-z_]+:(read|write))$/

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** An untrusted client or redirect_uri gets an error page, never a redirect (RFC 6749 4.1.2.1). */
function errorPage(reply: FastifyReply, detail: string): FastifyReply {
  return reply
    .code(400)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><title>Authorization error - PostHog</title><h1>Authorization error</h1><p>${esc(detail)}</p>`,
    )
}

function back(p: Form, params: Record<string, string>): string {
  const url = new URL(p.redirect_uri!)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  if (p.state !== undefined) url.searchParams.set('state', p.state)
  return url.toString()
}

type Check = { page: string } | { redirect: Record<string, string> } | undefined

/** PostHog's checks before consent: known client, exact redirect URI, code flow, PKCE S256, valid scopes. */
function checkRequest(authority: PosthogOAuthAuthority, p: Form): Check {
  const client = p.client_id ? authority.client(p.client_id) : undefined
  if (!client) return { page: 'Invalid client_id parameter value.' }
  if (!p.redirect_uri || !client.redirectUris.includes(p.redirect_uri))
    return { page: 'Mismatching redirect URI.' }
  if (p.response_type !== 'code') return { redirect: { error: 'unsupported_response_type' } }
  if (!p.code_challenge)
    return { redirect: { error: 'invalid_request', error_description: 'Code challenge required.' } }
  if (p.code_challenge_method !== 'S256')
    return { redirect: { error: 'invalid_request', error_description: 'Unsupported code challenge method.' } }
  const scopes = (p.scope ?? '').split(' ').filter(Boolean)
  if (scopes.length === 0 || scopes.some((s) => !SCOPE.test(s)))
    return { redirect: { error: 'invalid_scope' } }
  return undefined
}

/**
 * `GET /oauth/authorize/`: PostHog's consent page (the user is taken as signed in), with Allow and Deny;
 * `POST` is the decision. Allow redirects with a single-use code bound to the client, redirect URI and
 * PKCE challenge; Deny with `error=access_denied`.
 */
export function registerConsentRoutes(app: FastifyInstance, authority: PosthogOAuthAuthority): void {
  installFormParser(app)
  app.get(POSTHOG_AUTHORIZE_PATH, async (request, reply) => {
    if (redirectedToSlash(request, reply)) return reply
    const p = formOf(request)
    const bad = checkRequest(authority, p)
    if (bad && 'page' in bad) return errorPage(reply, bad.page)
    if (bad) return reply.redirect(back(p, bad.redirect), 302)
    const client = authority.client(p.client_id!)!
    const hidden = Object.entries(p)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v ?? '')}">`)
      .join('')
    const scopes = p
      .scope!.split(' ')
      .filter(Boolean)
      .map((s) => `<li>${esc(s)}</li>`)
      .join('')
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize ${esc(client.name ?? client.clientId)} - PostHog</title>
<style>body{font:15px system-ui,sans-serif;background:#eeefe9;display:flex;justify-content:center;padding-top:60px}
main{background:#fff;border:1px solid #d0d1c9;border-radius:8px;padding:32px;width:440px}h1{font-size:20px}
button{border-radius:6px;padding:8px 20px;font:inherit;cursor:pointer;border:1px solid #d0d1c9;background:#fff}
button[value=allow]{background:#1d4aff;color:#fff;border-color:#1d4aff}.row{display:flex;gap:12px;justify-content:flex-end}</style></head>
<body><main><h1>Authorize ${esc(client.name ?? client.clientId)}</h1>
<p>Signed in to the emulated PostHog. The application asks for:</p><ul>${scopes}</ul>
<form method="post" action="${POSTHOG_AUTHORIZE_PATH}">${hidden}
<div class="row"><button type="submit" name="decision" value="deny" id="deny">Deny</button>
<button type="submit" name="decision" value="allow" id="allow">Authorize</button></div></form></main></body></html>`)
  })

  app.post(POSTHOG_AUTHORIZE_PATH, async (request, reply) => {
    if (redirectedToSlash(request, reply)) return reply
    const p = formOf(request)
    const bad = checkRequest(authority, p)
    if (bad && 'page' in bad) return errorPage(reply, bad.page)
    if (bad) return reply.redirect(back(p, bad.redirect), 302)
    if (p.decision !== 'allow') return reply.redirect(back(p, { error: 'access_denied' }), 302)
    const code = authority.issueCode({
      clientId: p.client_id!,
      scopes: p.scope!.split(' ').filter(Boolean),
      redirectUri: p.redirect_uri!,
      codeChallenge: p.code_challenge!,
    })
    return reply.redirect(back(p, { code }), 302)
  })
}
