import { localDay } from '../calendar.js'
import { bucketsOf, type Period, parsePeriod } from '../periods.js'
import { compileSegment } from '../segment.js'
import type { MatomoActionRecord, MatomoSiteRecord, MatomoState, MatomoVisitRecord } from '../state.js'
import { applyLimit, type MethodHandler, type Params, siteParam } from './params.js'

type Row = Record<string, string | number>
type Compute = (visits: MatomoVisitRecord[], period: Period, params: Params) => Row | Row[]

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits
/**
 * Matomo counts unique visitors only for day, week and month (matomo-org/matomo@f09912cb:
 * config/global.ini.php enable_processing_unique_visitors_year = 0, _range = 0).
 */
const uniquesKept = (period: Period) => period === 'day' || period === 'week' || period === 'month'
const raw = (params: Params) => params.format_metrics === '0'

const REFERRER_TYPE_NAMES: Readonly<Record<string, string>> = {
  direct: 'Direct Entry',
  search: 'Search Engines',
  website: 'Websites',
  social: 'Social Networks',
  campaign: 'Campaigns',
}

/**
 * Core visit metrics; a bounce is a visit with one action (or none)
 * (matomo-org/matomo@f09912cb:core/DataAccess/LogAggregator.php getVisitsMetricFields, bounce_count).
 */
function visitMetrics(visits: readonly MatomoVisitRecord[], period: Period): Row {
  const row: Row = {
    nb_visits: visits.length,
    nb_actions: visits.reduce((a, v) => a + v.actionDetails.length, 0),
    nb_visits_converted: visits.filter((v) => v.visitConverted === '1').length,
    sum_visit_length: visits.reduce((a, v) => a + Number(v.visitDuration), 0),
    bounce_count: visits.filter((v) => v.actionDetails.length === 1).length,
    max_actions: visits.reduce((a, v) => Math.max(a, v.actionDetails.length), 0),
  }
  if (uniquesKept(period)) row.nb_uniq_visitors = new Set(visits.map((v) => v.visitorId)).size
  return row
}

function summary(visits: MatomoVisitRecord[], period: Period, params: Params): Row | Row[] {
  if (visits.length === 0) return []
  const m = visitMetrics(visits, period)
  const visitsN = Number(m.nb_visits)
  const bounce = Number(m.bounce_count) / visitsN
  return {
    ...(m.nb_uniq_visitors !== undefined ? { nb_uniq_visitors: m.nb_uniq_visitors } : {}),
    nb_users: new Set(visits.filter((v) => v.userId).map((v) => v.userId)).size,
    nb_visits: visitsN,
    nb_actions: m.nb_actions as number,
    nb_visits_converted: m.nb_visits_converted as number,
    bounce_count: m.bounce_count as number,
    sum_visit_length: m.sum_visit_length as number,
    max_actions: m.max_actions as number,
    // Without format_metrics=0, Matomo formats rates for display.
    bounce_rate: raw(params) ? round(bounce) : `${Math.round(bounce * 100)}%`,
    nb_actions_per_visit: round(Number(m.nb_actions) / visitsN, 1),
    avg_time_on_site: Math.round(Number(m.sum_visit_length) / visitsN),
  }
}

function actionsSummary(visits: MatomoVisitRecord[]): Row | Row[] {
  if (visits.length === 0) return []
  const pairs = (type: string) =>
    visits.flatMap((v) => v.actionDetails.filter((a) => a.type === type).map((a) => `${v.idVisit} ${a.url}`))
  return {
    nb_pageviews: pairs('action').length,
    nb_uniq_pageviews: new Set(pairs('action')).size,
    nb_downloads: pairs('download').length,
    nb_uniq_downloads: new Set(pairs('download')).size,
    nb_outlinks: pairs('outlink').length,
    nb_uniq_outlinks: new Set(pairs('outlink')).size,
    nb_searches: pairs('search').length,
  }
}

/**
 * `flat=1` replaces a row that has a subtable by its subtable's rows, labelled `parent - child`, for any
 * report with subtables, not only the Actions hierarchies (matomo-org/matomo@f09912cb:
 * core/API/DataTablePostProcessor.php applyFlattener, core/API/DataTableManipulator/Flattener.php).
 */
function flatLabel(label: string, sub: string | undefined, params: Params): string {
  return params.flat === '1' && sub !== undefined ? `${label} - ${sub}` : label
}

/**
 * A row report over visits, one row per label, sorted by visits (the default sort of Matomo's reports,
 * matomo-org/matomo@f09912cb:core/Plugin/Report.php defaultSortColumn nb_visits).
 */
function byVisit(
  labelOf: (v: MatomoVisitRecord) => { label: string; extra?: Row; sub?: string } | undefined,
): Compute {
  return (visits, period, params) => {
    const groups = new Map<string, { extra: Row; visits: MatomoVisitRecord[] }>()
    for (const v of visits) {
      const key = labelOf(v)
      if (!key) continue
      const label = flatLabel(key.label, key.sub, params)
      const g = groups.get(label) ?? { extra: key.extra ?? {}, visits: [] }
      g.visits.push(v)
      groups.set(label, g)
    }
    return [...groups.entries()]
      .map(([label, g]): Row => ({ label, ...visitMetrics(g.visits, period), ...g.extra, segment: '' }))
      .sort(
        (a, b) => Number(b.nb_visits) - Number(a.nb_visits) || String(a.label).localeCompare(String(b.label)),
      )
  }
}

/** Page reports: `flat=1` gives one row per URL; otherwise the first path level, with a subtable id. */
function byPage(key: 'url' | 'pageTitle'): Compute {
  return (visits, _period, params) => {
    const groups = new Map<
      string,
      {
        hits: number
        visits: Set<string>
        time: number
        url?: string
        entry: number
        bounces: number
        exit: number
      }
    >()
    for (const v of visits) {
      const pages = v.actionDetails.filter((a) => a.type === 'action')
      pages.forEach((a: MatomoActionRecord, i) => {
        const url = String(a.url ?? '')
        const path = new URL(url).pathname
        const label =
          key === 'pageTitle'
            ? String(a.pageTitle ?? '')
            : params.flat === '1'
              ? path
              : `/${path.split('/')[1] ?? ''}`
        const g = groups.get(label) ?? {
          hits: 0,
          visits: new Set(),
          time: 0,
          entry: 0,
          bounces: 0,
          exit: 0,
        }
        g.hits++
        g.visits.add(v.idVisit)
        g.time += Number(a.timeSpent ?? 0)
        if (key === 'url' && params.flat === '1') g.url = url
        if (i === 0) g.entry++
        if (i === 0 && v.actionDetails.length === 1) g.bounces++
        if (i === pages.length - 1) g.exit++
        groups.set(label, g)
      })
    }
    return [...groups.entries()]
      .map(([label, g], i) => ({
        label,
        nb_hits: g.hits,
        nb_visits: g.visits.size,
        sum_time_spent: g.time,
        entry_nb_visits: g.entry,
        entry_bounce_count: g.bounces,
        exit_nb_visits: g.exit,
        bounce_rate: pageBounceRate(g.bounces, g.entry, params),
        avg_time_on_page: Math.round(g.time / g.hits),
        ...(g.url ? { url: g.url } : {}),
        ...(key === 'url' && params.flat !== '1' ? { idsubdatatable: i + 1 } : {}),
      }))
      .sort((a, b) => b.nb_visits - a.nb_visits || a.label.localeCompare(b.label))
  }
}

/**
 * The processed metric `bounce_rate` of page rows: entry_bounce_count / entry_nb_visits, a quotient with
 * format_metrics=0 and `"40%"` otherwise; there is no `entry_bounce_rate` column
 * (matomo-org/matomo@f09912cb:plugins/Actions/Columns/Metrics/BounceRate.php; processed metrics of
 * plugins/Actions/Reports/GetPageUrls.php and GetEntryPageUrls.php).
 */
function pageBounceRate(bounces: number, entries: number, params: Params): number | string {
  const q = entries === 0 ? 0 : round(bounces / entries)
  return raw(params) ? q : `${Math.round(q * 100)}%`
}

const entryPages: Compute = (visits, _period, params) => {
  const groups = new Map<string, { visits: MatomoVisitRecord[]; url: string }>()
  for (const v of visits) {
    const first = v.actionDetails.find((a) => a.type === 'action')
    if (!first) continue
    const url = String(first.url)
    const label =
      params.flat === '1' ? new URL(url).pathname : `/${new URL(url).pathname.split('/')[1] ?? ''}`
    const g = groups.get(label) ?? { visits: [], url }
    g.visits.push(v)
    groups.set(label, g)
  }
  return [...groups.entries()]
    .map(([label, g]) => ({
      label,
      entry_nb_visits: g.visits.length,
      entry_nb_actions: g.visits.reduce((a, v) => a + v.actionDetails.length, 0),
      entry_sum_visit_length: g.visits.reduce((a, v) => a + Number(v.visitDuration), 0),
      entry_bounce_count: g.visits.filter((v) => v.actionDetails.length === 1).length,
      bounce_rate: pageBounceRate(
        g.visits.filter((v) => v.actionDetails.length === 1).length,
        g.visits.length,
        params,
      ),
      ...(params.flat === '1' ? { url: g.url } : {}),
    }))
    .sort((a, b) => b.entry_nb_visits - a.entry_nb_visits)
}

/** Event names; their subtables are the event actions (plugins/Events/Reports/GetName.php getActionFromNameId). */
const eventNames: Compute = (visits, _period, params) => {
  const groups = new Map<string, { events: number; visits: Set<string>; value: number }>()
  for (const v of visits) {
    for (const a of v.actionDetails) {
      if (a.type !== 'event') continue
      const label = flatLabel(String(a.eventName ?? ''), String(a.eventAction ?? ''), params)
      const g = groups.get(label) ?? { events: 0, visits: new Set(), value: 0 }
      g.events++
      g.visits.add(v.idVisit)
      g.value += Number(a.eventValue ?? 0)
      groups.set(label, g)
    }
  }
  return [...groups.entries()].map(([label, g]) => ({
    label,
    nb_events: g.events,
    nb_visits: g.visits.size,
    sum_event_value: g.value,
  }))
}

/**
 * Runs a report over the period/date the request names: one answer, or one object keyed by period label
 * for `date=a,b`/`lastN` with a non-range period; an empty period is `[]`
 * (matomo-org/matomo@f09912cb:core/Archive.php, core/API/ResponseBuilder.php).
 */
function report(compute: Compute, rows: boolean): MethodHandler {
  return (state: MatomoState, params: Params) => {
    const site: MatomoSiteRecord = siteParam(state, params)
    const timezone = site.timezone ?? 'UTC'
    const period = parsePeriod(params.period)
    const { buckets, multi } = bucketsOf(period, params.date, timezone)
    const matches = compileSegment(params.segment)
    const all = state.visitsOf(site.idsite as string).filter(matches)
    const answer = (first: string, last: string) => {
      const visits = all.filter((v) => {
        const day = localDay(v.lastActionTimestamp, timezone)
        return day >= first && day <= last
      })
      const result = compute(visits, period, params)
      return rows && Array.isArray(result) ? applyLimit(result, params) : result
    }
    if (!multi) return answer(buckets[0]?.first ?? '', buckets[0]?.last ?? '')
    return Object.fromEntries(buckets.map((b) => [b.label, answer(b.first, b.last)]))
  }
}

export const REPORT_METHODS: Readonly<Record<string, MethodHandler>> = {
  'VisitsSummary.get': report(summary, false),
  'Actions.get': report(actionsSummary, false),
  'Actions.getPageUrls': report(byPage('url'), true),
  'Actions.getPageTitles': report(byPage('pageTitle'), true),
  'Actions.getEntryPageUrls': report(entryPages, true),
  'UserCountry.getCountry': report(
    byVisit((v) => ({
      label: String(v.country),
      extra: { code: String(v.countryCode), logo: `plugins/Morpheus/icons/dist/flags/${v.countryCode}.png` },
    })),
    true,
  ),
  'UserCountry.getCity': report(
    byVisit((v) => ({ label: `${v.city}, ${v.region}, ${v.country}` })),
    true,
  ),
  'DevicesDetection.getType': report(
    byVisit((v) => ({ label: String(v.deviceType) })),
    true,
  ),
  'DevicesDetection.getBrowsers': report(
    byVisit((v) => ({ label: String(v.browserName) })),
    true,
  ),
  'DevicesDetection.getOsFamilies': report(
    byVisit((v) => ({ label: String(v.operatingSystemName) })),
    true,
  ),
  'Referrers.getReferrerType': report(
    // Each type but direct entry has the referrers of that type as subtable
    // (plugins/Referrers/DataTable/Filter/SetGetReferrerTypeSubtables.php).
    byVisit((v) => ({
      label: REFERRER_TYPE_NAMES[String(v.referrerType)] ?? String(v.referrerType),
      ...(v.referrerType === 'direct' ? {} : { sub: String(v.referrerName) }),
    })),
    true,
  ),
  'Referrers.getAll': report(
    byVisit((v) => ({
      label: v.referrerType === 'direct' ? 'Direct Entry' : String(v.referrerName),
      extra: { referer_type: String(v.referrerType) },
    })),
    true,
  ),
  'Referrers.getCampaigns': report(
    // A campaign's subtable is its keywords (plugins/Referrers/Reports/GetCampaigns.php
    // getKeywordsFromCampaignId); a campaign without one has the row "Keyword not defined".
    byVisit((v) =>
      v.referrerType === 'campaign'
        ? { label: String(v.referrerName), sub: String(v.referrerKeyword || 'Keyword not defined') }
        : undefined,
    ),
    true,
  ),
  'Events.getName': report(eventNames, true),
}
