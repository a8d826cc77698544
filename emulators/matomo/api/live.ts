import { localDay } from '../calendar.js'
import { MatomoApiError, requireParam } from '../errors.js'
import { bucketsOf, parsePeriod } from '../periods.js'
import { compileSegment } from '../segment.js'
import type { MatomoState, MatomoVisitRecord } from '../state.js'
import { applyLimit, type MethodHandler, type Params, siteParam } from './params.js'

/** The visits a Live query selects: site, optional period window (last action, site calendar), segment. */
export function selectVisits(state: MatomoState, params: Params): MatomoVisitRecord[] {
  const site = siteParam(state, params)
  const timezone = site.timezone ?? 'UTC'
  let inWindow: (v: MatomoVisitRecord) => boolean = () => true
  if (params.period !== undefined || params.date !== undefined) {
    const { buckets } = bucketsOf(parsePeriod(params.period), params.date, timezone)
    const first = buckets[0]?.first ?? ''
    const last = buckets[buckets.length - 1]?.last ?? ''
    inWindow = (v) => {
      const day = localDay(v.lastActionTimestamp, timezone)
      return day >= first && day <= last
    }
  }
  const min = params.minTimestamp
  if (min !== undefined && !/^\d+$/.test(min))
    throw new MatomoApiError(`minTimestamp must be a unix timestamp, '${min}' given.`)
  const matches = compileSegment(params.segment)
  return state
    .visitsOf(site.idsite as string)
    .filter((v) => inWindow(v) && (min === undefined || v.lastActionTimestamp > Number(min)) && matches(v))
}

export const LIVE_METHODS: Readonly<Record<string, MethodHandler>> = {
  /** GDPR tool: the visits (data subjects) a segment selects, with their ids. */
  'PrivacyManager.findDataSubjects': (state, params) => {
    requireParam(params, 'segment')
    return selectVisits(state, params).map((v) => ({ ...v, idsite: v.idSite, idvisit: v.idVisit }))
  },
  /** GDPR tool: deletes the listed visits (`visits[i][idsite]`, `visits[i][idvisit]`) and their actions. */
  'PrivacyManager.deleteDataSubjects': (state, params) => {
    const targets: Array<{ idsite: string; idvisit: string }> = []
    for (let i = 0; params[`visits[${i}][idvisit]`] !== undefined; i++) {
      targets.push({
        idsite: params[`visits[${i}][idsite]`] ?? '',
        idvisit: params[`visits[${i}][idvisit]`] ?? '',
      })
    }
    if (targets.length === 0) throw new MatomoApiError("Please specify a value for 'visits'.")
    let visits = 0
    let actions = 0
    for (const t of targets) {
      const removed = state.deleteVisit(t.idsite, t.idvisit)
      if (removed) {
        visits++
        actions += removed.actionDetails.length
      }
    }
    return { log_visit: visits, log_link_visit_action: actions, log_conversion: 0 }
  },
  'Live.getLastVisitsDetails': (state, params) => {
    const order = params.filter_sort_order ?? 'desc'
    if (order !== 'asc' && order !== 'desc') {
      throw new MatomoApiError(`filter_sort_order must be asc or desc, '${order}' given.`)
    }
    const visits = selectVisits(state, params)
    if (order === 'asc') visits.reverse()
    const page = applyLimit(visits, params)
    return params.doNotFetchActions === '1' ? page.map((v) => ({ ...v, actionDetails: [] })) : page
  },
  'Live.getVisitorProfile': (state, params) => {
    const site = siteParam(state, params)
    const visitorId = requireParam(params, 'visitorId')
    if (!/^[0-9a-f]{16}$/i.test(visitorId)) {
      throw new MatomoApiError(
        `The visitor ID '${visitorId}' is not valid (16 hexadecimal characters expected).`,
      )
    }
    const visits = state
      .visitsOf(site.idsite as string)
      .filter((v) => v.visitorId === visitorId.toLowerCase())
    const limit = Number(params.limitVisits ?? 10)
    return profileOf(
      visitorId.toLowerCase(),
      visits,
      Number.isFinite(limit) ? limit : 10,
      site.timezone ?? 'UTC',
    )
  },
}

function profileOf(visitorId: string, visits: MatomoVisitRecord[], limit: number, timezone: string) {
  const actions = visits.flatMap((v) => v.actionDetails)
  const count = (type: string) => actions.filter((a) => a.type === type).length
  const summary = (v: MatomoVisitRecord | undefined) =>
    v
      ? {
          date: localDay(v.firstActionTimestamp, timezone),
          prettyDate: localDay(v.firstActionTimestamp, timezone),
          daysAgo: Math.max(0, Math.floor((Date.now() / 1000 - v.firstActionTimestamp) / 86_400)),
          referrerType: v.referrerType,
          referralSummary: v.referrerName || 'Direct Entry',
        }
      : []
  const countries = new Map<string, { country: string; nb_visits: number; prettyName: string }>()
  for (const v of visits) {
    const code = String(v.countryCode)
    const c = countries.get(code) ?? { country: code, nb_visits: 0, prettyName: String(v.country) }
    c.nb_visits++
    countries.set(code, c)
  }
  return {
    visitorId,
    userId: visits.find((v) => v.userId)?.userId ?? null,
    totalVisits: visits.length,
    totalVisitDuration: visits.reduce((a, v) => a + Number(v.visitDuration), 0),
    totalActions: actions.length,
    totalPageViews: count('action'),
    totalOutlinks: count('outlink'),
    totalDownloads: count('download'),
    totalSearches: count('search'),
    totalGoalConversions: count('goal'),
    totalEcommerceRevenue: actions
      .filter((a) => a.type === 'ecommerceOrder')
      .reduce((a, o) => a + Number(o.revenue ?? 0), 0),
    firstVisit: summary(visits[visits.length - 1]),
    lastVisit: summary(visits[0]),
    lastVisits: visits.slice(0, limit),
    countries: [...countries.values()]
      .sort((a, b) => b.nb_visits - a.nb_visits)
      .map((c) => ({ ...c, flag: `plugins/Morpheus/icons/dist/flags/${c.country}.png` })),
  }
}
