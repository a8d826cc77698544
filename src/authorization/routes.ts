import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, badRequest, notFound } from '../errors.js'
import { requireWorkspaceKey } from '../http/auth.js'
import { parseCategories } from '../http/categories.js'
import { validationMessage } from '../http/errors.js'
import { INTEGRATIONS, integrationOf } from '../integrations/registry.js'
import { integrationPermissions, integrationView } from '../integrations/support.js'
import type { Services } from '../services.js'
import { embedScript } from './embed/script.js'
import { KEY_PAGE_PATH, OAUTH_CALLBACK_PATH, tooManyRequests } from './flow.js'
import { tooManyPage } from './key-page.js'
import { type OAuthEndpoints, oauthEndpointsFrom } from './oauth-apps.js'
import { callbackQueryOf } from './oauth-callback.js'
import { oauthSpecOf } from './oauth-spec.js'
import type { Outcome } from './outcome.js'
import { resultPage } from './pages/result.js'
import { normalizeAuthQuery, type RawAuthQuery } from './query.js'
import { checkRedirectTarget, RedirectRefused, withParams } from './redirects.js'

/** What the embeddable component takes as `link_url`: an http(s) address or a path of the embedding site. */
const LINK_URL = /^(https?:\/\/|\/)/i

/**
 * Size limits of the auth endpoint's parameters. Anyone can call it, and each call stores a pending
 * authorization holding these values until it expires: without limits one caller could write megabytes.
 */
export const AUTH_QUERY_LIMITS = {
  state: 1024,
  external_xref: 256,
  redirect: 2048,
  scopes: 1024,
  scopeItems: 64,
  short: 64,
} as const

const S = (description: string, maxLength: number = AUTH_QUERY_LIMITS.short) =>
  Type.Optional(Type.String({ description: `${description} At most ${maxLength} characters.`, maxLength }))

const AuthQuerySchema = Type.Object(
  {
    success_redirect: S(
      'Where the user goes on success; id, state, nonce, type and sig are appended.',
      AUTH_QUERY_LIMITS.redirect,
    ),
    failure_redirect: S(
      'Where the user goes on failure; error and error_code are appended.',
      AUTH_QUERY_LIMITS.redirect,
    ),
    success_url: S('Alias of success_redirect.', AUTH_QUERY_LIMITS.redirect),
    failure_url: S('Alias of failure_redirect.', AUTH_QUERY_LIMITS.redirect),
    external_xref: S(
      'Your own reference for the end user, stored on the connection.',
      AUTH_QUERY_LIMITS.external_xref,
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ maxLength: AUTH_QUERY_LIMITS.scopes }), {
        description: `Unified permissions (analytics_event_read), repeated or comma-joined; at most ${AUTH_QUERY_LIMITS.scopeItems} values of ${AUTH_QUERY_LIMITS.scopes} characters.`,
        maxItems: AUTH_QUERY_LIMITS.scopeItems,
      }),
    ),
    state: S('Echoed unchanged on the success redirect (and signed).', AUTH_QUERY_LIMITS.state),
    env: S('Environment, default Production.'),
    environment: S('Alias of env.'),
    redirect: S('1 or true: answer with a redirect instead of the URL as text.'),
    lang: S('Language of the hosted pages.'),
    region: S('Accepted for compatibility.'),
    subdomain: S('Accepted for compatibility.'),
    theme: S('Accepted for compatibility.'),
  },
  { additionalProperties: false },
)

/**
 * What an OAuth app's fields may hold: far above any provider's client ids and secrets (tens of characters,
 * a few hundred for a JWT-shaped one) and any address; an unbounded client_id was stored and then built into
 * every authorize URL, a megabyte each.
 */
export const OAUTH_APP_LIMITS = { client: 4096, url: AUTH_QUERY_LIMITS.redirect } as const
const OAuthUrl = () => Type.Optional(Type.String({ maxLength: OAUTH_APP_LIMITS.url }))

const OAuthAppBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: OAUTH_APP_LIMITS.client }),
    client_secret: Type.String({ minLength: 1, maxLength: OAUTH_APP_LIMITS.client }),
    authorize_url: OAuthUrl(),
    token_url: OAuthUrl(),
    revoke_url: OAuthUrl(),
    api_url: OAuthUrl(),
  },
  { additionalProperties: false },
)

/** Hosted pages must not be framed (clickjacking), cached, or leak their state-bearing URL as a referrer. */
function sendOutcome(reply: FastifyReply, outcome: Outcome): FastifyReply {
  void reply.headers({
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'",
    ...(outcome.kind === 'page' ? outcome.headers : {}),
  })
  if (outcome.kind === 'redirect') return reply.code(303).header('location', outcome.location).send()
  return reply.code(outcome.status).type('text/html; charset=utf-8').send(outcome.html)
}

/**
 * The embeddable component's parameters but `lists` (repeated or comma-joined), each given once: a repeated
 * one arrives as an array, which was looked up as a workspace id (a 500 from the store, for anyone) or
 * written into the script as it came.
 */
function singleValues(
  query: Readonly<Record<string, string | string[] | undefined>>,
  lists: readonly string[],
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(query)) {
    if (lists.includes(name)) continue
    if (Array.isArray(value)) throw badRequest(`${name}: give it once (it was given ${value.length} times)`)
    out[name] = value
  }
  return out
}

/** Names Unigate itself gives (integration types, unified permissions): repeating one says nothing new. */
let knownNames: ReadonlySet<string> | undefined
function isKnownName(value: string): boolean {
  knownNames ??= new Set(INTEGRATIONS.flatMap((i) => [i.type, ...integrationPermissions(i)]))
  return knownNames.has(value)
}

/**
 * What a browser sent by a link (redirect=1) is told of a refused authorization, on the page and in the
 * failure redirect's `error`: the refusal's words, unless they repeat something the link gave other than a
 * name Unigate knows, or name a redirect target the link gave (told back as its origin, lowercased, so not
 * found as given). Anyone can make such a link, to any workspace's allowed failure redirect: an integration
 * type or scope of `Your account is locked, call …` put that sentence on the integrator's failure page and on
 * Unigate's own, under "Secured by Unigate" (as the OAuth callback's `error_description` did). The link's
 * maker reads the full refusal by opening the link without redirect=1.
 */
function wordsForBrowser(err: ApiError, given: readonly string[]): string {
  const said = err.message.toLowerCase()
  const repeats =
    err.cause instanceof RedirectRefused ||
    given.some((v) => v.length >= MIN_ECHO_LENGTH && !isKnownName(v) && said.includes(v.toLowerCase()))
  if (!repeats) return err.message
  return `This connection link is not valid (HTTP ${err.statusCode}); its maker sees why by opening it without redirect=1.`
}

/**
 * Values shorter than this are not looked for in a refusal: too short to carry a sentence, and `1` or `us`
 * is found in almost any message (a refusal saying "retry in 15 s" was replaced because of `redirect=1`).
 */
const MIN_ECHO_LENGTH = 4

/** Every value a link gave: its path parameters, and its query's values (list items one by one). */
function valuesOfLink(params: Readonly<Record<string, string>>, query: Readonly<Record<string, unknown>>) {
  const values = Object.values(params)
  for (const value of Object.values(query)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string') continue
      values.push(item, ...item.split(',').map((part) => part.trim()))
    }
  }
  return values
}

function flag(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined
  return v === 'true' || v === '1'
}

/** The authorization flow's public routes (no API key: end users' browsers call them) and its settings. */
export async function authorizationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const { flow, keyPage, oauthCallback, oauthApps, addressLimits } = services.authorization
  // Per client address, before any work: the auth endpoint answers JSON, the key page a page.
  const limitAuth = async (request: FastifyRequest) => {
    const wait = addressLimits.auth.take(request.ip)
    if (wait !== undefined) throw tooManyRequests(wait, 'this address')
  }
  const limitKeyPage = async (request: FastifyRequest, reply: FastifyReply) => {
    const wait = addressLimits.keyPage.take(request.ip)
    if (wait !== undefined) return sendOutcome(reply, tooManyPage(wait))
  }
  // The key page is posted by its own form: any other body (JSON, which this plugin parses for the OAuth app
  // routes) is refused before it is read, as anyone may post to the page, with any token.
  const formOnly = async (request: FastifyRequest, reply: FastifyReply) => {
    const type = request.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase()
    if (type === undefined || type === 'application/x-www-form-urlencoded') return
    return sendOutcome(reply, {
      kind: 'page',
      status: 415,
      html: resultPage({
        ok: false,
        title: 'This page takes its form',
        message: 'Send the form on this page (application/x-www-form-urlencoded); nothing else is read.',
      }),
    })
  }
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 65_536 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  )

  app.get(
    '/unified/integration/auth/:workspace_id/:integration_type',
    {
      onRequest: limitAuth,
      schema: {
        operationId: 'getUnifiedIntegrationAuth',
        summary: 'Authorize a new connection',
        description:
          'Answers the URL to send the end user to (text/plain), or redirects there with redirect=1. No API key.',
        tags: ['integration'],
        params: Type.Object({ workspace_id: Type.String(), integration_type: Type.String() }),
        querystring: AuthQuerySchema,
        response: {
          200: { content: { 'text/plain': { schema: Type.String() } } },
          302: Type.Null({ description: 'With redirect=1: a redirect to that URL.' }),
        },
      },
      schemaErrorFormatter: (errors, context) =>
        new Error(validationMessage(errors, context, Object.keys(AuthQuerySchema.properties))),
    },
    async (request, reply) => {
      const { workspace_id, integration_type } = request.params as {
        workspace_id: string
        integration_type: string
      }
      const q = normalizeAuthQuery(request.query as RawAuthQuery)
      try {
        const url = await flow.start(workspace_id, integration_type, q)
        if (q.redirect)
          return reply.code(302).header('cache-control', 'no-store').header('location', url).send()
        return reply.code(200).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(url)
      } catch (err) {
        if (!(err instanceof ApiError) || !q.redirect) throw err
        // A browser was sent here: it gets the failure redirect if that one is allowed, else a page.
        const words = wordsForBrowser(
          err,
          valuesOfLink({ workspace_id, integration_type }, request.query as Record<string, unknown>),
        )
        const ws = await services.workspaceSettings.get(workspace_id)
        if (q.failureRedirect && ws) {
          try {
            checkRedirectTarget('failure_redirect', q.failureRedirect, ws.allowed_redirect_origins)
            return reply
              .code(302)
              .header(
                'location',
                withParams(q.failureRedirect, {
                  error: words,
                  error_code: 'invalid_request',
                  ...(q.state ? { state: q.state } : {}),
                  // The link's own integration type only when it names one: else it is the link's words too.
                  ...(integrationOf(integration_type) ? { type: integration_type } : {}),
                }),
              )
              .send()
          } catch (refused) {
            if (!(refused instanceof RedirectRefused)) throw refused
          }
        }
        return sendOutcome(reply, {
          kind: 'page',
          status: err.statusCode,
          html: resultPage({ ok: false, title: 'This connection link is not valid', message: words }),
        })
      }
    },
  )

  const TokenParams = Type.Object({ token: Type.String() })
  const hidden = { hide: true, params: TokenParams }
  app.get(`${KEY_PAGE_PATH}/:token`, { schema: hidden, onRequest: limitKeyPage }, async (request, reply) =>
    sendOutcome(reply, await keyPage.show((request.params as { token: string }).token)),
  )
  const keyPagePost = { schema: hidden, onRequest: [limitKeyPage, formOnly] }
  app.post(`${KEY_PAGE_PATH}/:token`, keyPagePost, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const form: Record<string, string> = {}
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') form[k] = v
    return sendOutcome(reply, await keyPage.submit((request.params as { token: string }).token, form))
  })
  app.get(
    `${KEY_PAGE_PATH}/:token/cancel`,
    { schema: hidden, onRequest: limitKeyPage },
    async (request, reply) =>
      sendOutcome(reply, await keyPage.cancel((request.params as { token: string }).token)),
  )
  app.get(OAUTH_CALLBACK_PATH, { schema: { hide: true } }, async (request, reply) =>
    sendOutcome(
      reply,
      await oauthCallback.handle(callbackQueryOf(request.query as Record<string, unknown>), request.log),
    ),
  )

  // The embeddable component, at the path Unified serves it from, so only the host changes.
  app.get('/docs/unified.js', { schema: { hide: true } }, async (request, reply) => {
    const given = request.query as Record<string, string | string[] | undefined>
    const q = singleValues(given, ['cat'])
    if (!q.wid || !q.did) throw badRequest('unified.js needs wid (workspace id) and did (element id)')
    // The component makes it the href of every integration's link: any other scheme (javascript:, data:) would
    // run or render in the embedding page when clicked. Leading spaces count: browsers strip them from hrefs.
    if (q.link_url !== undefined && !LINK_URL.test(q.link_url))
      throw badRequest(
        'link_url: an http or https address, or a path starting with /, with {type} where the integration goes',
      )
    if (!(await services.workspaceSettings.get(q.wid))) throw notFound(`workspace ${q.wid} not found`)
    const cats = parseCategories('cat', given.cat)
    const integrations = INTEGRATIONS.filter((i) => !cats || i.categories.some((c) => cats.includes(c)))
      .filter((i) => !(i.categories.length === 1 && (i.categories as readonly string[])[0] === 'auth'))
      .map((i) => integrationView(i, true))
    const options = {
      api: services.config.publicUrl,
      wid: q.wid,
      did: q.did,
      ...Object.fromEntries(
        (['env', 'uid', 'state', 'scopes', 'surl', 'furl', 'lang', 'link_url'] as const)
          .filter((k) => q[k])
          .map((k) => [k, q[k]]),
      ),
      ...(flag(q.style) === false ? { style: false } : {}),
      ...(flag(q.nocategories) ? { nocategories: true } : {}),
      ...(flag(q.notabs) ? { notabs: true } : {}),
    }
    return reply
      .type('application/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=60')
      .send(embedScript(options, integrations))
  })

  // The workspace's OAuth clients: Unigate's own settings, behind the workspace API key.
  const auth = requireWorkspaceKey(services.apiKeys)
  const appSchema = {
    tags: ['workspace'],
    security: [{ jwt: [] }],
    params: Type.Object({ integration_type: Type.String() }),
  }
  const oauthIntegration = (type: string) => {
    const integration = integrationOf(type)
    if (!integration) throw notFound(`integration '${type}' not found`)
    if (!oauthSpecOf(integration))
      throw badRequest(`${integration.name} does not use OAuth; it needs no OAuth app`)
    return integration
  }
  const appView = (a: { integrationType: string; clientId: string; endpoints: OAuthEndpoints }) => ({
    integration_type: a.integrationType,
    client_id: a.clientId,
    ...a.endpoints,
  })
  app.put(
    '/unified/workspace/oauth_app/:integration_type',
    {
      onRequest: auth,
      schema: { ...appSchema, operationId: 'putUnigateOAuthApp', body: OAuthAppBody },
      schemaErrorFormatter: (errors, context) =>
        new Error(validationMessage(errors, context, Object.keys(OAuthAppBody.properties))),
    },
    async (request) => {
      const integration = oauthIntegration((request.params as { integration_type: string }).integration_type)
      const body = request.body as Record<string, string | undefined>
      const endpoints = oauthEndpointsFrom(body, services.config.outbound.allowAddresses)
      const saved = {
        workspaceId: request.workspaceId,
        integrationType: integration.type,
        clientId: body.client_id!,
        clientSecret: body.client_secret!,
        endpoints,
      }
      await oauthApps.put(saved)
      return appView(saved)
    },
  )
  app.get(
    '/unified/workspace/oauth_app/:integration_type',
    { onRequest: auth, schema: { ...appSchema, operationId: 'getUnigateOAuthApp' } },
    async (request) => {
      const type = (request.params as { integration_type: string }).integration_type
      const found = await oauthApps.get(request.workspaceId, type)
      if (!found) throw notFound(`no OAuth app for ${type} in this workspace`)
      return appView(found)
    },
  )
  app.delete(
    '/unified/workspace/oauth_app/:integration_type',
    { onRequest: auth, schema: { ...appSchema, operationId: 'removeUnigateOAuthApp' } },
    async (request, reply) => {
      const type = (request.params as { integration_type: string }).integration_type
      if (!(await oauthApps.remove(request.workspaceId, type)))
        throw notFound(`no OAuth app for ${type} in this workspace`)
      return reply.code(200).send()
    },
  )
}
