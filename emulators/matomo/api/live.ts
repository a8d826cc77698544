import { localDay, prettyTime, siteWallSeconds } from '../calendar.js'
import { VISITOR_LOG_MAX_ACTIONS } from '../constants.js'
import { MatomoApiError, MatomoNoAccessError, requireParam } from '../errors.js'
import { bucketsOf, parsePeriod } from '../periods.js'
import { compileSegment } from '../segment.js'
import type { MatomoState, MatomoVisitRecord } from '../state.js'
import { type LiveBounds, liveBounds, livePage } from './live-windows.js'
import { type MethodHandler, type Params, siteParam } from './params.js'

/**
 * The visits a Live query selects: site, optional period window (by the visit's last action, in the
 * site's calendar), `minTimestamp` (strictly after, on the last action) and segment, newest first
 * (matomo-org/matomo@f09912cb:plugins/Live/Model.php queryLogVisits, getLastMinimumVisitTime).
 */
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
  // A minTimestamp that is not a number is ignored (plugins/Live/API.php getLastVisitsDetails is_numeric).
  const min =
    params.minTimestamp !== undefined && /^\d+$/.test(params.minTimestamp)
      ? Number(params.minTimestamp)
      : undefined
  const matches = compileSegment(params.segment)
  return state
    .visitsOf(site.idsite as string)
    .filter((v) => inWindow(v) && (min === undefined || v.lastActionTimestamp > min) && matches(v))
}

/** The time bounds Live's SQL gets from `period`/`date` (see liveBounds); none without them. */
function boundsOf(state: MatomoState, params: Params): LiveBounds {
  if (params.period === undefined || params.date === undefined) return {}
  const timezone = siteParam(state, params).timezone ?? 'UTC'
  const { buckets } = bucketsOf(parsePeriod(params.period), params.date, timezone)
  const nowS = Math.floor(Date.now() / 1000)
  return liveBounds(
    buckets[0]?.first ?? '',
    buckets[buckets.length - 1]?.last ?? '',
    params.date,
    localDay(nowS, timezone),
    timezone,
    nowS,
  )
}

/**
 * A visit as Live answers it: its actions' `timestamp` on the site's wall clock (see siteWallSeconds)
 * with `serverTimePretty` the same wall time written out (matomo-org/matomo@f09912cb:
 * plugins/Actions/VisitorDetails.php extendActionDetails, DATETIME_FORMAT_SHORT), and the visit's own
 * local strings from its UTC first and last action times (plugins/Live/VisitorDetails.php
 * extendVisitorDetails: serverTimestamp, serverTimePretty, serverDatePretty, …FirstAction). In the hour
 * a daylight-saving change repeats, two instants give one string, as in Matomo.
 */
function asLive(v: MatomoVisitRecord, timezone: string): MatomoVisitRecord {
  const last = siteWallSeconds(v.lastActionTimestamp, timezone)
  const first = siteWallSeconds(v.firstActionTimestamp, timezone)
  return {
    ...v,
    serverTimestamp: v.lastActionTimestamp,
    serverTimePretty: prettyTime.time(last),
    serverDatePretty: prettyTime.dateLong(last),
    serverDatePrettyFirstAction: prettyTime.dateLong(first),
    serverTimePrettyFirstAction: prettyTime.time(first),
    actionDetails: v.actionDetails.map((a) => {
      const wall = siteWallSeconds(a.timestamp, timezone)
      return { ...a, serverTimePretty: prettyTime.dateTimeShort(wall), timestamp: wall }
    }),
  }
}

/** findDataSubjects' cap (matomo-org/matomo@f09912cb:plugins/PrivacyManager/API.php, filter_limit). */
export const FIND_DATA_SUBJECTS_LIMIT = 401

/** The columns findDataSubjects keeps (same file, $columnsToKeep); the rest are deleted. */
const DATA_SUBJECT_COLUMNS = [
  'lastActionDateTime',
  'idVisit',
  'idSite',
  'siteName',
  'visitorId',
  'visitIp',
  'userId',
  'deviceType',
  'deviceModel',
  'deviceTypeIcon',
  'operatingSystem',
  'operatingSystemIcon',
  'browser',
  'browserFamilyDescription',
  'browserIcon',
  'country',
  'region',
  'countryFlag',
] as const

/** Visits a visitor profile aggregates (matomo-org/matomo@f09912cb:config/global.ini.php live_visitor_profile_max_visits_to_aggregate). */
export const PROFILE_MAX_VISITS = 100

export const LIVE_METHODS: Readonly<Record<string, MethodHandler>> = {
  /**
   * GDPR tool: the visits (data subjects) a segment selects, newest first. Matomo runs
   * Live.getLastVisitsDetails over all time with filter_limit=401 and keeps only a few columns, so a
   * visitor with more visits needs another find after deleting these
   * (matomo-org/matomo@f09912cb:plugins/PrivacyManager/API.php findDataSubjects).
   */
  'PrivacyManager.findDataSubjects': (state, params) => {
    requireParam(params, 'segment')
    siteParam(state, params)
    if (!state.isSuperUser(params.token_auth)) {
      // Piwik::checkUserHasSomeAdminAccess (same file); the emulator's restricted tokens view only.
      throw new MatomoNoAccessError(
        "You can't access this resource as it requires admin access for at least one website.",
      )
    }
    const { period: _p, date: _d, minTimestamp: _m, ...rest } = params
    return selectVisits(state, rest)
      .slice(0, FIND_DATA_SUBJECTS_LIMIT)
      .map((v) => Object.fromEntries(DATA_SUBJECT_COLUMNS.flatMap((c) => (c in v ? [[c, v[c]]] : []))))
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
    // matomo-org/matomo@f09912cb:plugins/PrivacyManager/Validators/VisitsDataSubject.php
    if (targets.length === 0) throw new MatomoApiError('No list of visits given')
    targets.forEach((t, i) => {
      if (!t.idsite) throw new MatomoApiError(`No idsite key set for visit at index ${i}`)
    })
    let visits = 0
    let actions = 0
    let conversions = 0
    for (const t of targets) {
      const removed = state.deleteVisit(t.idsite, t.idvisit)
      if (removed) {
        visits++
        // Conversions live in log_conversion, the other actions in log_link_visit_action.
        const converted = removed.actionDetails.filter(
          (a) => a.type === 'goal' || a.type === 'ecommerceOrder',
        )
        conversions += converted.length
        actions += removed.actionDetails.length - converted.length
      }
    }
    return { log_visit: visits, log_link_visit_action: actions, log_conversion: conversions }
  },
  'Live.getLastVisitsDetails': (state, params) => {
    // Anything but "asc" sorts newest first (plugins/Live/Model.php makeLogVisitsQueryString).
    const visits = selectVisits(state, params)
    const asc = (params.filter_sort_order ?? '').toLowerCase() === 'asc'
    if (asc) visits.reverse()
    // Live's own default of 10 visits (plugins/Live/API.php getLastVisitsDetails, Common::getRequestVar
    // with an int default) only applies to internal calls or a filter_limit that is no integer: over HTTP
    // the API controller has already set filter_limit to 100 (see applyLimit in params.ts).
    const limit =
      params.filter_limit === undefined
        ? 100
        : /^-?\d+$/.test(params.filter_limit)
          ? Number(params.filter_limit)
          : 10
    const offset = /^\d+$/.test(params.filter_offset ?? '') ? Number(params.filter_offset) : 0
    const page = livePage(visits, boundsOf(state, params), offset, limit, asc, Math.floor(Date.now() / 1000))
    const timezone = siteParam(state, params).timezone ?? 'UTC'
    return page.map((v) =>
      asLive(
        // doNotFetchActions leaves actionDetails empty (plugins/Live/API.php addFilterToCleanVisitors).
        params.doNotFetchActions === '1'
          ? { ...v, actionDetails: [] }
          : v.actionDetails.length > VISITOR_LOG_MAX_ACTIONS
            ? {
                ...v,
                actionDetails: v.actionDetails.slice(0, VISITOR_LOG_MAX_ACTIONS),
                truncatedActionsCount: v.actionDetails.length - VISITOR_LOG_MAX_ACTIONS,
              }
            : v,
        timezone,
      ),
    )
  },
  /**
   * The profile aggregates the visitor's PROFILE_MAX_VISITS most recent visits and says whether there
   * are more (`hasMoreVisits`); `firstVisit` is still the very first visit, fetched separately
   * (matomo-org/matomo@f09912cb:plugins/Live/API.php getVisitorProfile, plugins/Live/VisitorProfile.php,
   * plugins/Live/VisitorDetails.php finalizeProfile). An unknown visitor is an empty array.
   */
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
    if (visits.length === 0) return []
    // limitVisits: a positive number, else VISITOR_PROFILE_MAX_VISITS_TO_SHOW (10) (same API.php).
    const asked = Number(params.limitVisits)
    const limit = Number.isFinite(asked) && asked > 0 ? Math.floor(asked) : 10
    return profileOf(visitorId.toLowerCase(), visits, limit, site)
  },
}

/**
 * `firstVisit`/`lastVisit` summaries: `date` is the visit's firstActionTimestamp (unix seconds), the
 * day is only in `prettyDate`, localized (matomo-org/matomo@f09912cb:plugins/Live/VisitorDetails.php
 * getVisitorProfileVisitSummary).
 */
function visitSummary(v: MatomoVisitRecord, timezone: string) {
  const day = localDay(v.firstActionTimestamp, timezone)
  return {
    date: v.firstActionTimestamp,
    prettyDate: new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', {
      weekday: 'long',
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      timeZone: 'UTC',
    }),
    daysAgo: Math.max(0, Math.floor((Date.now() / 1000 - v.firstActionTimestamp) / 86_400)),
    referrerType: v.referrerType,
    referrerUrl: v.referrerUrl || '',
    referralSummary: v.referrerType === 'direct' ? 'Direct Entry' : v.referrerName,
  }
}

function profileOf(
  visitorId: string,
  all: readonly MatomoVisitRecord[],
  limit: number,
  site: Readonly<Record<string, string>>,
) {
  const timezone = site.timezone ?? 'UTC'
  const visits = all.slice(0, PROFILE_MAX_VISITS)
  const actions = visits.flatMap((v) => v.actionDetails)
  const count = (type: string) => actions.filter((a) => a.type === type).length
  // Countries in the order visits are handled (newest first), then asort: ascending by visits, ties
  // keeping that order, so the most visited country is LAST
  // (matomo-org/matomo@f09912cb:plugins/UserCountry/VisitorDetails.php finalizeProfile).
  const countries = new Map<string, { country: string; nb_visits: number; prettyName: string }>()
  for (const v of visits) {
    const code = String(v.countryCode)
    const c = countries.get(code) ?? { country: code, nb_visits: 0, prettyName: String(v.country) }
    c.nb_visits++
    countries.set(code, c)
  }
  return {
    visitorId,
    hasMoreVisits: all.length > PROFILE_MAX_VISITS,
    userId: visits.find((v) => v.userId)?.userId ?? null,
    totalVisits: visits.length,
    totalVisitDuration: visits.reduce((a, v) => a + Number(v.visitDuration), 0),
    // Sums of the visits' own columns (plugins/Actions/VisitorDetails.php, plugins/Goals/VisitorDetails.php
    // handleProfileVisit).
    totalActions: visits.reduce((a, v) => a + Number(v.actions), 0),
    totalPageViews: count('action'),
    totalOutlinks: count('outlink'),
    totalDownloads: count('download'),
    totalSearches: count('search'),
    totalGoalConversions: visits.reduce((a, v) => a + Number(v.goalConversions), 0),
    totalEcommerceRevenue: actions
      .filter((a) => a.type === 'ecommerceOrder')
      .reduce((a, o) => a + Number(o.revenue ?? 0), 0),
    firstVisit: visitSummary(all[all.length - 1] as MatomoVisitRecord, timezone),
    lastVisit: visitSummary(visits[0] as MatomoVisitRecord, timezone),
    lastVisits: visits.slice(0, limit).map((v) => asLive(v, timezone)),
    visitsAggregated: Math.min(visits.length, limit),
    countries: [...countries.values()]
      .sort((a, b) => a.nb_visits - b.nb_visits)
      .map((c) => ({ ...c, flag: `plugins/Morpheus/icons/dist/flags/${c.country}.png` })),
  }
}
