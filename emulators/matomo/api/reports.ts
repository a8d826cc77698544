import {
  type ArchivingRowLimits,
  flattenedSummary,
  isSummaryRow,
  type Row,
  summaryLabel,
  summaryRowOf,
  truncateTable,
} from '../archiving.js'
import { localDay } from '../calendar.js'
import { bucketsOf, type Period, parsePeriod } from '../periods.js'
import { compileSegment } from '../segment.js'
import type { MatomoActionRecord, MatomoSiteRecord, MatomoState, MatomoVisitRecord } from '../state.js'
import { applyLimit, type MethodHandler, type Params, siteParam } from './params.js'

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
 * Core visit metrics over log_visit.visit_total_actions (`actions`, conversions not counted); a bounce
 * is a visit with one action or none (matomo-org/matomo@f09912cb:core/DataAccess/LogAggregator.php
 * getVisitsMetricFields: nb_actions, max_actions, bounce_count).
 */
function visitMetrics(visits: readonly MatomoVisitRecord[], period: Period): Row {
  const actions = (v: MatomoVisitRecord) => Number(v.actions)
  const row: Row = {
    nb_visits: visits.length,
    nb_actions: visits.reduce((a, v) => a + actions(v), 0),
    nb_visits_converted: visits.filter((v) => v.visitConverted === '1').length,
    sum_visit_length: visits.reduce((a, v) => a + Number(v.visitDuration), 0),
    bounce_count: visits.filter((v) => actions(v) <= 1).length,
    max_actions: visits.reduce((a, v) => Math.max(a, actions(v)), 0),
  }
  if (uniquesKept(period)) row.nb_uniq_visitors = new Set(visits.map((v) => v.visitorId)).size
  // A row with conversions also gets their count over every goal and ecommerce orders (abandoned carts
  // aside) and their revenue; a row without has neither column (matomo-org/matomo@f09912cb:
  // core/DataTable/Filter/EnrichRecordWithGoalMetricSums.php enrichWithConversions).
  const conversions = visits.flatMap((v) =>
    v.actionDetails.filter((a) => a.type === 'goal' || a.type === 'ecommerceOrder'),
  )
  if (conversions.length > 0) {
    row.nb_conversions = conversions.length
    row.revenue = round(conversions.reduce((sum, a) => sum + Number(a.revenue ?? 0), 0))
  }
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

/** What a report needs from the archive settings: the row caps and the summary row's label. */
interface Archive {
  readonly limits: ArchivingRowLimits
  readonly others: string
}

/** A report's archived rows for one period; `flat=1` decides whether subtables are expanded. */
type Table = (visits: MatomoVisitRecord[], period: Period, params: Params, archive: Archive) => Row[]

/** Caps of a report's table and its subtables (which `datatable_archiving_maximum_rows_*`). */
type Caps = (limits: ArchivingRowLimits) => { readonly top: number; readonly sub: number }

const byLabel = (a: Row, b: Row) => String(a.label).localeCompare(String(b.label))

/**
 * The API's generic Sort: by the report's default column, nb_visits, descending (matomo-org/matomo@
 * f09912cb:core/Plugin/Report.php defaultSortColumn; core/Metrics/Sorter.php sorts the rows without the
 * summary row, which stays last: core/DataTable.php getRows).
 */
function sortRows(rows: readonly Row[]): Row[] {
  const plain = rows.filter((r) => !isSummaryRow(r))
  const summary = rows.filter(isSummaryRow)
  plain.sort((a, b) => Number(b.nb_visits ?? 0) - Number(a.nb_visits ?? 0) || byLabel(a, b))
  return [...plain, ...summary]
}

/**
 * `flat=1` replaces a row that has a subtable by its subtable's rows, labelled `parent - child`, for any
 * report with subtables, not only the Actions hierarchies; the flattened table's rows, summary rows
 * included, are then sorted together (matomo-org/matomo@f09912cb: core/API/DataTablePostProcessor.php
 * applyFlattener before applyGenericFilters, core/API/DataTableManipulator/Flattener.php flattenRow adds
 * every row with addRow).
 */
interface Node {
  readonly row: Row
  /** The subtable's rows (already truncated to the subtable cap), when the row has one. */
  readonly children?: readonly Row[]
}

function output(nodes: readonly Node[], params: Params, separator: string): Row[] {
  if (params.flat !== '1') return sortRows(nodes.map((n) => n.row))
  const rows: Row[] = []
  for (const { row, children } of nodes) {
    if (!children) {
      rows.push(isSummaryRow(row) ? flattenedSummary(row, undefined, '') : row)
      continue
    }
    for (const child of children) {
      rows.push(
        isSummaryRow(child)
          ? flattenedSummary(child, String(row.label), separator)
          : { ...child, label: `${row.label}${separator}${child.label}` },
      )
    }
  }
  return rows.sort((a, b) => Number(b.nb_visits ?? 0) - Number(a.nb_visits ?? 0) || byLabel(a, b))
}

const VISIT_COLUMNS = new Set([
  'nb_uniq_visitors',
  'nb_visits',
  'nb_actions',
  'nb_visits_converted',
  'nb_conversions',
  'revenue',
  'sum_visit_length',
  'bounce_count',
  'max_actions',
])

/**
 * A row report over visits, one row per label (and, for reports with subtables, one subtable row per
 * `sub` value), truncated as archived (see archiving.ts for the sources).
 */
function byVisit(
  labelOf: (v: MatomoVisitRecord) => { label: string; extra?: Row; sub?: string } | undefined,
  caps: Caps,
): Table {
  return (visits, period, params, archive) => {
    const groups = new Map<
      string,
      { extra: Row; visits: MatomoVisitRecord[]; subs: Map<string, MatomoVisitRecord[]> }
    >()
    for (const v of visits) {
      const key = labelOf(v)
      if (!key) continue
      const g = groups.get(key.label) ?? {
        extra: key.extra ?? {},
        visits: [] as MatomoVisitRecord[],
        subs: new Map<string, MatomoVisitRecord[]>(),
      }
      g.visits.push(v)
      if (key.sub !== undefined) g.subs.set(key.sub, [...(g.subs.get(key.sub) ?? []), v])
      groups.set(key.label, g)
    }
    const { top, sub } = caps(archive.limits)
    const truncate = (rows: Row[], max: number) =>
      truncateTable(rows, { max, label: archive.others, numeric: VISIT_COLUMNS })
    const subtables = new Map<Row, Row[]>()
    const rows = [...groups.entries()].map(([label, g]) => {
      const row: Row = { label, ...visitMetrics(g.visits, period), ...g.extra }
      if (g.subs.size > 0) {
        const children = [...g.subs.entries()].map(
          ([s, vs]): Row => ({ label: s, ...visitMetrics(vs, period) }),
        )
        subtables.set(row, truncate(children, sub))
      }
      return row
    })
    const nodes = truncate(rows, top).map((row): Node => {
      const children = subtables.get(row)
      return children ? { row, children } : { row }
    })
    return output(nodes, params, ' - ')
  }
}

const PAGE_COLUMNS = new Set([
  'nb_hits',
  'nb_visits',
  'sum_time_spent',
  'entry_nb_visits',
  'entry_nb_actions',
  'entry_sum_visit_length',
  'entry_bounce_count',
  'exit_nb_visits',
])

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

/** Processed metrics of a page row, from its (possibly summed) columns. */
function pageProcessed(row: Row, params: Params): Row {
  const hits = Number(row.nb_hits ?? 0)
  return {
    ...row,
    bounce_rate: pageBounceRate(
      Number(row.entry_bounce_count ?? 0),
      Number(row.entry_nb_visits ?? 0),
      params,
    ),
    avg_time_on_page: hits === 0 ? 0 : Math.round(Number(row.sum_time_spent ?? 0) / hits),
  }
}

interface PageAggregate {
  hits: number
  visits: Set<string>
  time: number
  url?: string
  entry: number
  entryActions: number
  entryLength: number
  bounces: number
  exit: number
}

function pageRow(label: string, g: PageAggregate, params: Params): Row {
  // Entry columns exist only on rows that were an entry page (getEntryPageUrls keeps those rows).
  const entry: Row =
    g.entry > 0
      ? {
          entry_nb_visits: g.entry,
          entry_nb_actions: g.entryActions,
          entry_sum_visit_length: g.entryLength,
          entry_bounce_count: g.bounces,
        }
      : {}
  return pageProcessed(
    {
      label,
      nb_hits: g.hits,
      nb_visits: g.visits.size,
      sum_time_spent: g.time,
      ...entry,
      ...(g.exit > 0 ? { exit_nb_visits: g.exit } : {}),
      ...(g.url ? { url: g.url } : {}),
    },
    params,
  )
}

/**
 * The page URL / page title table: rows are the first path level (`/docs`, `/pricing`); a level with
 * deeper pages is a folder whose subtable holds its pages, one row per URL path. Both levels are
 * truncated at archiving (`actions` for the top, `subtable_actions` below; plugins/Actions/
 * ArchivingHelper.php); flattened labels of a folder's summary row read `<folder>/ - Others` (Flattener
 * with the '/' separator Actions reports use). Titles have a single level here.
 */
function pageTable(key: 'url' | 'pageTitle'): Table {
  return (visits, _period, params, archive) => {
    const top = new Map<string, { folder: boolean; pages: Map<string, PageAggregate> }>()
    const aggregate = (map: Map<string, PageAggregate>, label: string) => {
      const g = map.get(label) ?? {
        hits: 0,
        visits: new Set<string>(),
        time: 0,
        entry: 0,
        entryActions: 0,
        entryLength: 0,
        bounces: 0,
        exit: 0,
      }
      map.set(label, g)
      return g
    }
    for (const v of visits) {
      const pages = v.actionDetails.filter((a) => a.type === 'action')
      pages.forEach((a: MatomoActionRecord, i) => {
        const url = String(a.url ?? '')
        const path = new URL(url).pathname
        const depth = path.split('/').filter(Boolean).length
        const level0 = key === 'pageTitle' ? String(a.pageTitle ?? '') : `/${path.split('/')[1] ?? ''}`
        const t = top.get(level0) ?? { folder: false, pages: new Map() }
        if (key === 'url' && depth > 1) t.folder = true
        top.set(level0, t)
        const g = aggregate(t.pages, key === 'url' ? path : level0)
        g.hits++
        g.visits.add(v.idVisit)
        g.time += Number(a.timeSpent ?? 0)
        if (key === 'url') g.url = url
        if (i === 0) {
          g.entry++
          g.entryActions += Number(v.actions)
          g.entryLength += Number(v.visitDuration)
          if (Number(v.actions) <= 1) g.bounces++
        }
        if (i === pages.length - 1) g.exit++
      })
    }
    const truncate = (rows: Row[], max: number) =>
      truncateTable(rows, {
        max,
        label: archive.others,
        numeric: PAGE_COLUMNS,
        finish: (row) => pageProcessed(row, params),
      })
    const subtables = new Map<Row, Row[]>()
    let subtableId = 0
    const rows = [...top.entries()].map(([label, t]) => {
      if (!t.folder) {
        const [path, g] = [...t.pages.entries()][0] as [string, PageAggregate]
        return pageRow(params.flat === '1' ? path : label, g, params)
      }
      // A folder's own columns sum its pages (nb_visits counts a visit once per page, as Matomo's do).
      const children = [...t.pages.entries()].map(([path, g]) => pageRow(path, g, params))
      const summed = children.reduce<Row>(
        (acc, c) => {
          for (const column of PAGE_COLUMNS) {
            if (typeof c[column] === 'number') acc[column] = Number(acc[column] ?? 0) + Number(c[column])
          }
          return acc
        },
        { label },
      )
      const row = pageProcessed({ ...summed, idsubdatatable: ++subtableId }, params)
      subtables.set(row, truncate(children, archive.limits.subtable_actions))
      return row
    })
    const nodes = truncate(rows, archive.limits.actions).map((row): Node => {
      const children = subtables.get(row)
      return children ? { row, children } : { row }
    })
    if (params.flat !== '1') return sortRows(nodes.map((n) => n.row))
    // Flat page rows are labelled by their full path already; only summary rows take the folder prefix.
    const flat: Row[] = []
    for (const { row, children } of nodes) {
      if (!children) flat.push(isSummaryRow(row) ? flattenedSummary(row, undefined, '') : row)
      else
        for (const child of children)
          flat.push(isSummaryRow(child) ? flattenedSummary(child, String(row.label), '/ - ') : child)
    }
    return flat
      .map(({ idsubdatatable: _id, ...r }) => r)
      .sort((a, b) => Number(b.nb_visits ?? 0) - Number(a.nb_visits ?? 0) || byLabel(a, b))
  }
}

/**
 * Entry pages are the page URL table without the rows that never started a visit
 * (matomo-org/matomo@f09912cb:plugins/Actions/API.php getEntryPageUrls, filterNonEntryActions).
 */
const entryPages: Table = (visits, period, params, archive) =>
  pageTable('url')(visits, period, params, archive).filter((r) => r.entry_nb_visits !== undefined)

const EVENT_COLUMNS = new Set(['nb_events', 'nb_visits', 'sum_event_value'])

/**
 * Event names; their subtables are the event actions (plugins/Events/Reports/GetName.php
 * getActionFromNameId); archived with the `events` caps (plugins/Events/RecordBuilders/EventReports.php).
 */
const eventNames: Table = (visits, _period, params, archive) => {
  const groups = new Map<
    string,
    {
      row: { events: number; visits: Set<string>; value: number }
      subs: Map<string, { events: number; visits: Set<string>; value: number }>
    }
  >()
  const bump = (
    g: { events: number; visits: Set<string>; value: number },
    v: MatomoVisitRecord,
    a: MatomoActionRecord,
  ) => {
    g.events++
    g.visits.add(v.idVisit)
    g.value += Number(a.eventValue ?? 0)
  }
  const fresh = () => ({ events: 0, visits: new Set<string>(), value: 0 })
  for (const v of visits) {
    for (const a of v.actionDetails) {
      if (a.type !== 'event') continue
      const name = String(a.eventName ?? '')
      const g = groups.get(name) ?? { row: fresh(), subs: new Map() }
      bump(g.row, v, a)
      const action = String(a.eventAction ?? '')
      const s = g.subs.get(action) ?? fresh()
      bump(s, v, a)
      g.subs.set(action, s)
      groups.set(name, g)
    }
  }
  const rowOf = (label: string, g: { events: number; visits: Set<string>; value: number }): Row => ({
    label,
    nb_events: g.events,
    nb_visits: g.visits.size,
    sum_event_value: g.value,
  })
  const truncate = (rows: Row[], max: number) =>
    truncateTable(rows, { max, label: archive.others, numeric: EVENT_COLUMNS })
  const subtables = new Map<Row, Row[]>()
  const rows = [...groups.entries()].map(([label, g]) => {
    const row = rowOf(label, g.row)
    subtables.set(
      row,
      truncate(
        [...g.subs.entries()].map(([s, sg]) => rowOf(s, sg)),
        archive.limits.subtable_events,
      ),
    )
    return row
  })
  const nodes = truncate(rows, archive.limits.events).map((row): Node => {
    const children = subtables.get(row)
    return children ? { row, children } : { row }
  })
  return output(nodes, params, ' - ')
}

/**
 * The report a referrer type's row of getReferrerType expands to: search engines give their keywords
 * (getKeywords, "Keyword not defined" for an empty one), the other types their referrers' names
 * (matomo-org/matomo@f09912cb:plugins/Referrers/API.php getReferrerType with idSubtable, getKeywords,
 * DataTable/Filter/KeywordNotDefined.php). Direct entries have none.
 */
function referrerTypeSubLabel(v: MatomoVisitRecord): string | undefined {
  if (v.referrerType === 'direct') return undefined
  if (v.referrerType === 'search') return String(v.referrerKeyword || 'Keyword not defined')
  return String(v.referrerName)
}

/**
 * Referrers.getAll: the rows of each referrer type's own report (see referrerTypeSubLabel; each archived
 * with the `referrers` cap), merged; direct entries have no such report and are not in it; the types'
 * summary rows add up into one (matomo-org/matomo@f09912cb:plugins/Referrers/API.php getAll,
 * plugins/Referrers/DataTable/Filter/SetGetReferrerTypeSubtables.php, core/DataTable.php mergeSubtables).
 */
const allReferrers: Table = (visits, period, _params, archive) => {
  const byType = new Map<string, Map<string, MatomoVisitRecord[]>>()
  for (const v of visits) {
    const label = referrerTypeSubLabel(v)
    if (label === undefined) continue
    const type = String(v.referrerType)
    const names = byType.get(type) ?? new Map<string, MatomoVisitRecord[]>()
    names.set(label, [...(names.get(label) ?? []), v])
    byType.set(type, names)
  }
  const rows: Row[] = []
  const summaries: Row[] = []
  for (const [type, names] of byType) {
    const table = [...names.entries()].map(
      ([label, vs]): Row => ({ label, ...visitMetrics(vs, period), referer_type: type }),
    )
    for (const row of truncateTable(table, {
      max: archive.limits.referrers,
      label: archive.others,
      numeric: VISIT_COLUMNS,
    })) {
      if (isSummaryRow(row)) summaries.push(row)
      else rows.push(row)
    }
  }
  // One summary row for all types, the sum of theirs, without a referer_type (sumRow copies no metadata).
  if (summaries.length > 0)
    rows.push(summaryRowOf(summaries, { label: archive.others, numeric: VISIT_COLUMNS }))
  return sortRows(rows)
}

/**
 * One referrer type's report: search engines, websites (domains), social networks, each row a referrer
 * name with its keywords or URLs as subtable (matomo-org/matomo@f09912cb:plugins/Referrers/API.php
 * getSearchEngines, getWebsites, getSocials; the `referrers` caps).
 */
const referrersOfType = (type: string, sub: (v: MatomoVisitRecord) => string) =>
  byVisit(
    (v) => (v.referrerType === type ? { label: String(v.referrerName), sub: sub(v) } : undefined),
    (l) => ({ top: l.referrers, sub: l.subtable_referrers }),
  )

/** A one-record report (VisitsSummary.get, Actions.get): not a table, never truncated. */
type Compute = (visits: MatomoVisitRecord[], period: Period, params: Params) => Row | Row[]

/**
 * Runs a report over the period/date the request names: one answer, or one object keyed by period label
 * for `date=a,b`/`lastN` with a non-range period; an empty period is `[]`
 * (matomo-org/matomo@f09912cb:core/Archive.php, core/API/ResponseBuilder.php). Tables then go through
 * the generic filters (filter_offset/filter_limit, keep_summary_row: params.ts applyLimit).
 */
function report(compute: { record: Compute } | { table: Table }): MethodHandler {
  return (state: MatomoState, params: Params) => {
    const site: MatomoSiteRecord = siteParam(state, params)
    const timezone = site.timezone ?? 'UTC'
    const period = parsePeriod(params.period)
    const { buckets, multi } = bucketsOf(period, params.date, timezone)
    const matches = compileSegment(params.segment)
    const all = state.visitsOf(site.idsite as string).filter(matches)
    const archive: Archive = {
      limits: state.archivingLimits,
      others: summaryLabel(params.language, state.userLanguage),
    }
    const answer = (first: string, last: string) => {
      const visits = all.filter((v) => {
        const day = localDay(v.lastActionTimestamp, timezone)
        return day >= first && day <= last
      })
      if ('record' in compute) return compute.record(visits, period, params)
      return applyLimit(compute.table(visits, period, params, archive), params)
    }
    if (!multi) return answer(buckets[0]?.first ?? '', buckets[0]?.last ?? '')
    return Object.fromEntries(buckets.map((b) => [b.label, answer(b.first, b.last)]))
  }
}

const standard: Caps = (l) => ({ top: l.standard, sub: l.standard })
const referrers: Caps = (l) => ({ top: l.referrers, sub: l.subtable_referrers })

export const REPORT_METHODS: Readonly<Record<string, MethodHandler>> = {
  'VisitsSummary.get': report({ record: summary }),
  'Actions.get': report({ record: actionsSummary }),
  'Actions.getPageUrls': report({ table: pageTable('url') }),
  'Actions.getPageTitles': report({ table: pageTable('pageTitle') }),
  'Actions.getEntryPageUrls': report({ table: entryPages }),
  // Countries are archived without a cap (plugins/UserCountry/RecordBuilders/Locations.php).
  'UserCountry.getCountry': report({
    table: byVisit(
      (v) => ({
        label: String(v.country),
        extra: {
          code: String(v.countryCode),
          logo: `plugins/Morpheus/icons/dist/flags/${v.countryCode}.png`,
        },
      }),
      () => ({ top: Number.POSITIVE_INFINITY, sub: Number.POSITIVE_INFINITY }),
    ),
  }),
  'UserCountry.getCity': report({
    table: byVisit((v) => ({ label: `${v.city}, ${v.region}, ${v.country}` }), standard),
  }),
  'DevicesDetection.getType': report({ table: byVisit((v) => ({ label: String(v.deviceType) }), standard) }),
  'DevicesDetection.getBrowsers': report({
    table: byVisit((v) => ({ label: String(v.browserName) }), standard),
  }),
  'DevicesDetection.getOsFamilies': report({
    table: byVisit((v) => ({ label: String(v.operatingSystemName) }), standard),
  }),
  'Referrers.getReferrerType': report({
    // Each type but direct entry has that type's own report as subtable (referrerTypeSubLabel;
    // plugins/Referrers/DataTable/Filter/SetGetReferrerTypeSubtables.php), archived with the `referrers` cap.
    table: byVisit(
      (v) => {
        const sub = referrerTypeSubLabel(v)
        return {
          label: REFERRER_TYPE_NAMES[String(v.referrerType)] ?? String(v.referrerType),
          // The row's segment names the type's code (API.php getReferrerType, AddSegmentByLabelMapping).
          extra: { segment: `referrerType==${v.referrerType}` },
          ...(sub === undefined ? {} : { sub }),
        }
      },
      (l) => ({ top: l.referrers, sub: l.referrers }),
    ),
  }),
  'Referrers.getAll': report({ table: allReferrers }),
  'Referrers.getSearchEngines': report({
    table: referrersOfType('search', (v) => String(v.referrerKeyword || 'Keyword not defined')),
  }),
  'Referrers.getWebsites': report({ table: referrersOfType('website', (v) => String(v.referrerUrl)) }),
  'Referrers.getSocials': report({ table: referrersOfType('social', (v) => String(v.referrerUrl)) }),
  'Referrers.getCampaigns': report({
    // A campaign's subtable is its keywords (plugins/Referrers/Reports/GetCampaigns.php
    // getKeywordsFromCampaignId); a campaign without one has the row "Keyword not defined".
    table: byVisit(
      (v) =>
        v.referrerType === 'campaign'
          ? { label: String(v.referrerName), sub: String(v.referrerKeyword || 'Keyword not defined') }
          : undefined,
      referrers,
    ),
  }),
  'Events.getName': report({ table: eventNames }),
}
