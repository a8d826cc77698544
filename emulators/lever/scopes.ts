/**
 * What an OAuth token must carry for each endpoint the emulator serves. Lever lists its scopes with what each
 * allows (https://hire.lever.co/developer/documentation#scopes) but marks no endpoint with a scope, so this
 * table is the emulator's assumption, read off those texts: an endpoint belongs to the resource it is
 * documented under, and a scope's text says what it allows on that resource.
 * Most write scopes read "View and manage all …" (`opportunities:write:admin`: "View and manage all
 * opportunities"), so they read too; `webhooks:write:admin` reads "Manage all webhooks" beside
 * `webhooks:read:admin` "View all webhooks", so listing webhooks needs the read scope. (A connector vendor's
 * guide, docs.stackone.com/connectors/lever/guides/connector-profile/oauth-2-0, says "Write scopes include all
 * corresponding read permissions"; Lever's own texts say it of every write scope but this one, and the
 * emulator follows Lever's.) API keys carry no scopes: a key's access is set when it is created, in Lever's
 * settings (#authentication), which the emulator does not model beyond confidential data.
 */

interface ResourceScopes {
  /** Lets a token read the resource ("View all …"). */
  readonly read: string
  /** Lets a token change it; undefined where Lever has no write scope for it. */
  readonly write?: string
  /** True when the write scope's text is "View and manage …": it reads too. */
  readonly writeReads?: boolean
}

const OPPORTUNITIES: ResourceScopes = {
  read: 'opportunities:read:admin',
  write: 'opportunities:write:admin',
  writeReads: true,
}
// "offers:read:admin: View all of an opportunity's offers"; Lever lists no offers write scope.
const OFFERS: ResourceScopes = { read: 'offers:read:admin' }
const STAGES: ResourceScopes = { read: 'stages:read:admin' }
const ARCHIVE_REASONS: ResourceScopes = { read: 'archive_reasons:read:admin' }
const WEBHOOKS: ResourceScopes = {
  read: 'webhooks:read:admin',
  write: 'webhooks:write:admin',
  writeReads: false,
}

/** The resource each route is documented under (#opportunities, #offers, #stages, #archive-reasons, #webhooks-via-the-api). */
const ROUTES: Readonly<Record<string, ResourceScopes>> = {
  '/v1/opportunities': OPPORTUNITIES,
  '/v1/opportunities/:id': OPPORTUNITIES,
  '/v1/opportunities/:id/stage': OPPORTUNITIES,
  '/v1/opportunities/:id/archived': OPPORTUNITIES,
  '/v1/opportunities/:id/offers': OFFERS,
  '/v1/stages': STAGES,
  '/v1/archive_reasons': ARCHIVE_REASONS,
  '/v1/webhooks': WEBHOOKS,
  '/v1/webhooks/:id': WEBHOOKS,
}

/**
 * The scopes any one of which lets a token call `method` on `route` (the route as registered, e.g.
 * `/v1/webhooks/:id`); undefined for a route the emulator does not serve (answered 404 anyway).
 */
export function scopesFor(method: string, route: string | undefined): readonly string[] | undefined {
  const resource = route === undefined ? undefined : ROUTES[route]
  if (!resource) return undefined
  if (method === 'GET' || method === 'HEAD') {
    return resource.write && resource.writeReads ? [resource.read, resource.write] : [resource.read]
  }
  return resource.write ? [resource.write] : []
}

/** "confidential:access:admin: Access all confidential data" (#scopes, #confidential-data). */
export const CONFIDENTIAL_SCOPE = 'confidential:access:admin'

/**
 * Every scope an application can ask Lever's OAuth server for: "List of all the scopes an application can
 * request", https://hire.lever.co/developer/documentation#scopes, in its order (52 names, `offline_access` first:
 * "Include this scope in the authorize call in order to get a refresh token during the token exchange").
 * Confirmed by APIs.io's index of Lever's scopes (lever-co-scopes, "scope_count: 52", the same names, taken from
 * that page) and, less the diversity-survey, EEO and webhook scopes, by the scopes amp-labs/connectors asks
 * Lever's sandbox for (test/lever/connector.go at 10f046f). Note the singular `contact:…`, and that the
 * resources listed with a read scope only (offers, referrals, resumes, sources, stages, tags, tasks, …) have no
 * write scope. Any other scope is refused at authorize (oauth.ts).
 */
export const LEVER_OAUTH_SCOPES: ReadonlySet<string> = new Set([
  'offline_access',
  'applications:read:admin',
  'archive_reasons:read:admin',
  'audit_events:read:admin',
  'confidential:access:admin',
  'contact:read:admin',
  'contact:write:admin',
  'diversity_surveys:read:admin',
  'eeo_responses:read:admin',
  'eeo_responses_pii:read:admin',
  'feedback:read:admin',
  'feedback:write:admin',
  'feedback_templates:read:admin',
  'feedback_templates:write:admin',
  'files:read:admin',
  'files:write:admin',
  'forms:read:admin',
  'forms:write:admin',
  'form_templates:read:admin',
  'form_templates:write:admin',
  'groups:read:admin',
  'groups:write:admin',
  'interviews:read:admin',
  'interviews:write:admin',
  'notes:read:admin',
  'notes:write:admin',
  'offers:read:admin',
  'opportunities:read:admin',
  'opportunities:write:admin',
  'panels:read:admin',
  'panels:write:admin',
  'permissions:read:admin',
  'permissions:write:admin',
  'postings:read:admin',
  'postings:write:admin',
  'referrals:read:admin',
  'requisitions:read:admin',
  'requisitions:write:admin',
  'requisition_fields:read:admin',
  'requisition_fields:write:admin',
  'resumes:read:admin',
  'roles:read:admin',
  'roles:write:admin',
  'sources:read:admin',
  'stages:read:admin',
  'tags:read:admin',
  'tasks:read:admin',
  'uploads:write:admin',
  'users:read:admin',
  'users:write:admin',
  'webhooks:read:admin',
  'webhooks:write:admin',
])
