import type { FastifyInstance } from 'fastify'
import { abilities, requireAllSites, requireSite } from '../auth.js'
import { invalid, notFound } from '../errors.js'
import type { FathomState, SiteRecord } from '../state.js'

type Query = Record<string, string | undefined>

/** `2020-07-27 12:01:01`, UTC. */
const fathomTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

function siteJson(s: SiteRecord) {
  return {
    id: s.id,
    object: 'site',
    name: s.name,
    sharing: s.sharing,
    created_at: fathomTime(s.createdAt),
    timezone: s.timezone,
  }
}

const SHARING = ['none', 'private', 'public'] as const

function checkBody(body: Record<string, unknown>, creating: boolean): void {
  if (creating && (typeof body.name !== 'string' || body.name.trim() === ''))
    throw invalid('The name field is required.')
  if (body.name !== undefined && (typeof body.name !== 'string' || body.name.length > 255)) {
    throw invalid('The name must be a string of at most 255 characters.')
  }
  if (body.sharing !== undefined && !(SHARING as readonly unknown[]).includes(body.sharing)) {
    throw invalid('The selected sharing is invalid.')
  }
  if (body.sharing === 'private' && creating && typeof body.share_password !== 'string') {
    throw invalid('The share password field is required when sharing is private.')
  }
}

function siteOf(state: FathomState, params: unknown): SiteRecord {
  const site = state.sites.get((params as { id: string }).id)
  if (!site) throw notFound()
  return site
}

export function registerSiteRoutes(app: FastifyInstance, state: FathomState): void {
  /**
   * `GET /v1/token`: metadata of the token used, for any valid token; the secret is never returned
   * (https://usefathom.com/api/v1/account, "Get token").
   */
  app.get('/v1/token', async (request) => ({
    name: 'Emulated token',
    version: 4,
    abilities: abilities(request),
    last_used_at: null,
    expires_at: null,
    created_at: '2024-01-01 12:00:00',
    updated_at: '2024-01-01 12:00:00',
  }))

  // "Requires a token with full account access (the * scope)" (https://usefathom.com/api/v1/account).
  app.get('/v1/account', async (request) => {
    requireAllSites(request, true)
    return {
      id: 1,
      object: 'account',
      name: 'Emulated account',
      email: 'owner@example.com',
    }
  })

  /**
   * `{object: "list", url, has_more, data}`, sorted by created_at ascending; `limit` 1 to 100 (default
   * 10); the next page starts after the last id seen. Needs all-sites access
   * (https://usefathom.com/api/v1/sites, https://usefathom.com/api/v1/pagination).
   */
  app.get('/v1/sites', async (request) => {
    requireAllSites(request, false)
    const q = request.query as Query
    const limitText = q.limit ?? '10'
    const limit = Number(limitText)
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100)
      throw invalid('The limit must be between 1 and 100.')
    if (q.starting_after && q.ending_before) throw invalid('Use starting_after or ending_before, not both.')
    let rows = state.orderedSites()
    if (q.starting_after) {
      const at = rows.findIndex((s) => s.id === q.starting_after)
      if (at < 0) throw invalid('The selected starting after is invalid.')
      rows = rows.slice(at + 1)
    } else if (q.ending_before) {
      const at = rows.findIndex((s) => s.id === q.ending_before)
      if (at < 0) throw invalid('The selected ending before is invalid.')
      rows = rows.slice(Math.max(0, at - limit), at)
    }
    return {
      object: 'list',
      url: '/v1/sites',
      has_more: rows.length > limit,
      data: rows.slice(0, limit).map(siteJson),
    }
  })

  app.post('/v1/sites', async (request) => {
    requireAllSites(request, true)
    const body = (request.body ?? {}) as Record<string, unknown>
    checkBody(body, true)
    const site = state.addSite(
      (body.name as string).trim(),
      (body.sharing as SiteRecord['sharing']) ?? 'none',
      Date.now(),
    )
    site.sharePassword = (body.share_password as string | undefined) ?? null
    return siteJson(site)
  })

  app.get('/v1/sites/:id', async (request) => {
    requireSite(request, (request.params as { id: string }).id, false)
    return siteJson(siteOf(state, request.params))
  })

  app.post('/v1/sites/:id', async (request) => {
    requireSite(request, (request.params as { id: string }).id, true)
    const site = siteOf(state, request.params)
    const body = (request.body ?? {}) as Record<string, unknown>
    checkBody(body, false)
    if (typeof body.name === 'string') site.name = body.name
    if (body.sharing !== undefined) site.sharing = body.sharing as SiteRecord['sharing']
    if (typeof body.share_password === 'string') site.sharePassword = body.share_password
    return siteJson(site)
  })

  app.delete('/v1/sites/:id', async (request) => {
    requireSite(request, (request.params as { id: string }).id, true)
    const site = siteOf(state, request.params)
    state.sites.delete(site.id)
    return { id: site.id, object: 'site', deleted: true }
  })
}
