import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requireGrant } from '../../google/bearer.js'
import type { EmulatedChannel } from '../data/seed.js'
import { checkSupported, forbidden, MONETARY, parseReportQuery, runReportQuery } from '../report-query.js'
import { SCOPES, type YoutubeState } from '../state.js'

/**
 * Analytics API v2 `reports.query` at `GET /v2/reports`: `ids` is `channel==MINE`, `channel==UC…` or
 * `contentOwner==NAME` (googleapis/google-api-go-client@6243c413:youtubeanalytics/v2/youtubeanalytics-api.json,
 * reports.query `ids`); content-owner reports need youtubepartner and a `channel==` filter naming one of
 * the owner's channels (https://developers.google.com/youtube/analytics/content_owner_reports). A channel
 * the token may not read is 403.
 */
export function registerReportRoutes(app: FastifyInstance, state: YoutubeState): void {
  app.get('/v2/reports', async (request: FastifyRequest) => {
    const check = state.bearer('youtubeanalytics.googleapis.com')
    const grant = requireGrant(check, request, SCOPES.analytics)
    requireGrant(check, request, SCOPES.reportsReadonly)
    const query = parseReportQuery(request.query as Record<string, string | undefined>)
    let channels: EmulatedChannel[]
    const m = /^(channel|contentOwner)==(.+)$/.exec(query.ids)
    if (!m) throw forbidden()
    const [, kind, value] = m as unknown as [string, string, string]
    if (kind === 'channel') {
      const own = state.seed.channels.filter((c) => c.owner === grant.subject)
      channels = value === 'MINE' ? own.slice(0, 1) : own.filter((c) => c.id === value)
      if (channels.length === 0) throw forbidden()
    } else {
      requireGrant(check, request, SCOPES.partner)
      const owner = state.seed.contentOwner
      if (owner.id !== value || !owner.users.includes(grant.subject)) throw forbidden()
      channels = state.seed.channels.filter((c) => c.contentOwner === value)
      const wanted = query.filters.channel
      if (wanted?.some((id) => !channels.some((c) => c.id === id))) throw forbidden()
    }
    if (query.metrics.some((name) => MONETARY.has(name))) requireGrant(check, request, SCOPES.monetary)
    checkSupported(query)
    state.chargeAnalytics()
    return runReportQuery(query, channels, { ...state.options, now: state.now() })
  })
}
