import type { FastifyInstance } from 'fastify'
import { SITES_DEFAULT_LIMIT, SITES_MAX_LIMIT } from '../constants.js'
import { badRequest, PlausibleHttpError } from '../errors.js'
import type { PlausibleState, SiteRecord } from '../state.js'

type Query = Record<string, string | undefined>

/** Cursors are opaque; they remember the last row and the page size they were made with. */
function encodeCursor(seq: number, limit: number): string {
  return Buffer.from(JSON.stringify({ s: seq, l: limit })).toString('base64url')
}

function decodeCursor(cursor: string): { s: number; l: number } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { s: unknown; l: unknown }
    if (typeof v.s === 'number' && typeof v.l === 'number') return { s: v.s, l: v.l }
  } catch {}
  throw badRequest('Invalid cursor')
}

function trackerConfig(site: SiteRecord) {
  return {
    id: site.trackerId,
    installation_type: null,
    track_404_pages: false,
    hash_based_routing: false,
    outbound_links: false,
    file_downloads: false,
    revenue_tracking: false,
    tagged_events: false,
    form_submissions: false,
    pageview_props: false,
  }
}

function siteJson(site: SiteRecord) {
  return {
    domain: site.domain,
    timezone: site.timezone,
    custom_properties: site.customProperties,
    tracker_script_configuration: trackerConfig(site),
  }
}

function siteOf(state: PlausibleState, params: unknown): SiteRecord {
  const site = state.sites.get((params as { site_id: string }).site_id)
  if (!site) throw new PlausibleHttpError(404, 'Site could not be found')
  return site
}

const DOMAIN = /^(?!-)[a-z0-9-]+(\.[a-z0-9-]+)+(\/[\w\-./]*)?$/i

function isTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

export function registerSiteRoutes(app: FastifyInstance, state: PlausibleState): void {
  app.get('/api/v1/sites', async (request) => {
    const q = request.query as Query
    const limitText = q.limit ?? String(SITES_DEFAULT_LIMIT)
    const limit = Number(limitText)
    if (!/^\d+$/.test(limitText) || limit < 1 || limit > SITES_MAX_LIMIT) {
      throw badRequest(`Parameter limit must be an integer between 1 and ${SITES_MAX_LIMIT}`)
    }
    if (q.after && q.before) throw badRequest('Use either after or before, not both')
    const team = q.team_id
    if (team !== undefined && !state.teams.some((t) => t.id === team)) {
      throw badRequest('Invalid team ID')
    }
    let rows = state.orderedSites().filter((s) => team === undefined || s.teamId === team)
    const cursor = q.after ?? q.before
    if (cursor) {
      const c = decodeCursor(cursor)
      // A cursor only continues the walk it came from: same page size.
      if (c.l !== limit) throw badRequest('Invalid cursor: limit must not change between pages')
      rows = q.after ? rows.filter((s) => s.seq < c.s) : rows.filter((s) => s.seq > c.s).slice(-limit)
    }
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    const first = page[0]
    return {
      sites: page.map((s) => ({ domain: s.domain, timezone: s.timezone })),
      meta: {
        after: rows.length > limit && last ? encodeCursor(last.seq, limit) : null,
        before: cursor && first ? encodeCursor(first.seq, limit) : null,
        limit,
      },
    }
  })

  app.get('/api/v1/sites/teams', async () => ({
    teams: state.teams,
    meta: { after: null, before: null, limit: 100 },
  }))

  app.get('/api/v1/sites/:site_id', async (request) => siteJson(siteOf(state, request.params)))

  app.post('/api/v1/sites', async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const domain = body.domain
    if (typeof domain !== 'string' || domain === '') throw badRequest("domain: can't be blank")
    if (!DOMAIN.test(domain)) throw badRequest('domain: must be a valid domain')
    if (state.sites.has(domain))
      throw badRequest(
        "domain: This domain has already been taken. Perhaps one of your team members registered it? If that's not the case, please contact support@plausible.io",
      )
    const timezone = body.timezone ?? 'Etc/UTC'
    if (typeof timezone !== 'string' || !isTimezone(timezone)) throw badRequest('timezone: is invalid')
    const team = body.team_id ?? 'team_main'
    if (typeof team !== 'string' || !state.teams.some((t) => t.id === team))
      throw badRequest('Invalid team ID')
    return siteJson(state.addSite(domain, timezone, team))
  })

  app.put('/api/v1/sites/:site_id', async (request) => {
    const site = siteOf(state, request.params)
    const body = (request.body ?? {}) as Record<string, unknown>
    if (body.domain === undefined && body.tracker_script_configuration === undefined) {
      throw badRequest(
        "Payload must contain at least one of the parameters 'domain', 'tracker_script_configuration'",
      )
    }
    if (body.domain !== undefined) {
      if (typeof body.domain !== 'string' || !DOMAIN.test(body.domain))
        throw badRequest('domain: must be a valid domain')
      if (body.domain !== site.domain && state.sites.has(body.domain))
        throw badRequest('domain: This domain has already been taken')
      const visits = state.visits.get(site.domain) ?? []
      state.sites.delete(site.domain)
      state.visits.delete(site.domain)
      site.domain = body.domain
      state.sites.set(site.domain, site)
      state.visits.set(site.domain, visits)
    }
    return siteJson(site)
  })

  app.delete('/api/v1/sites/:site_id', async (request) => {
    const site = siteOf(state, request.params)
    state.sites.delete(site.domain)
    state.visits.delete(site.domain)
    return { deleted: true }
  })
}
