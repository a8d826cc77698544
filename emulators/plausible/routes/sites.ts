import type { FastifyInstance } from 'fastify'
import { SITES_DEFAULT_LIMIT, SITES_MAX_LIMIT } from '../constants.js'
import { badRequest, PlausibleHttpError } from '../errors.js'
import type { PlausibleState, SiteRecord } from '../state.js'

type Query = Record<string, string | undefined>

/**
 * Cursors are opaque and carry only the cursor field (the site id, newest first): Plausible pages with
 * Paginator over `cursor_fields: [{:id, :desc}]` (plausible/analytics@04f5deb8:lib/plausible/pagination.ex,
 * external_sites_controller.ex @pagination_opts), so a cursor still works with another limit.
 */
function encodeCursor(seq: number): string {
  return Buffer.from(JSON.stringify({ s: seq })).toString('base64url')
}

function decodeCursor(cursor: string): { s: number } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { s: unknown }
    if (typeof v.s === 'number') return { s: v.s }
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

/**
 * The Sites API (Plausible Cloud / Enterprise code only): list, get, create, rename, delete, with the
 * controller's errors: 404 "Site could not be found", 400 `field: message` from the changeset
 * (plausible/analytics@0b6cea7d:extra/lib/plausible_web/controllers/api/external_sites_controller.ex;
 * https://plausible.io/docs/sites-api).
 */
export function registerSiteRoutes(app: FastifyInstance, state: PlausibleState): void {
  app.get('/api/v1/sites', async (request) => {
    const q = request.query as Query
    // A limit outside 1..100 is ignored, not refused (see SITES_MAX_LIMIT).
    const asked = q.limit === undefined ? Number.NaN : Number(q.limit)
    if (q.limit !== undefined && !/^-?\d+$/.test(q.limit))
      throw badRequest('Parameter limit must be an integer')
    const limit = asked >= 1 && asked <= SITES_MAX_LIMIT ? asked : SITES_DEFAULT_LIMIT
    if (q.after && q.before) throw badRequest('Use either after or before, not both')
    const team = q.team_id
    if (team !== undefined && !state.teams.some((t) => t.id === team)) {
      throw badRequest('Invalid team ID')
    }
    let rows = state.orderedSites().filter((s) => team === undefined || s.teamId === team)
    const cursor = q.after ?? q.before
    if (cursor) {
      const c = decodeCursor(cursor)
      rows = q.after ? rows.filter((s) => s.seq < c.s) : rows.filter((s) => s.seq > c.s).slice(-limit)
    }
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    const first = page[0]
    return {
      sites: page.map((s) => ({ domain: s.domain, timezone: s.timezone })),
      meta: {
        after: rows.length > limit && last ? encodeCursor(last.seq) : null,
        before: cursor && first ? encodeCursor(first.seq) : null,
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
      if (body.domain !== site.domain) site.domainChangedFrom = site.domain
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
