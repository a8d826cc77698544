import type { Dimension, MetricType } from '../../models/analytics.js'

/** Matomo column → unified metric type (providers.md 12.2); other columns stay in `raw`. */
export type MetricMap = Readonly<Record<string, MetricType>>

/**
 * CONVERSIONS is `nb_conversions`, the conversions of every goal and ecommerce orders, which archiving
 * adds to a row that has any (matomo-org/matomo@f09912cb:core/DataTable/Filter/
 * EnrichRecordWithGoalMetricSums.php, with `revenue`); not `nb_visits_converted`, which counts a visit
 * converting three times once.
 */
const VISIT_ROW_METRICS: MetricMap = {
  nb_visits: 'SESSIONS',
  nb_uniq_visitors: 'USERS',
  nb_actions: 'EVENTS',
  nb_conversions: 'CONVERSIONS',
  revenue: 'REVENUE',
}

const PAGE_ROW_METRICS: MetricMap = {
  nb_hits: 'PAGE_VIEWS',
  nb_visits: 'UNIQUE_PAGE_VIEWS',
  bounce_rate: 'BOUNCE_RATE',
}

export const SUMMARY_METRICS: MetricMap = {
  nb_uniq_visitors: 'USERS',
  nb_visits: 'SESSIONS',
  nb_actions: 'EVENTS',
  bounce_rate: 'BOUNCE_RATE',
  avg_time_on_site: 'AVERAGE_SESSION_DURATION',
  nb_actions_per_visit: 'EVENTS_PER_SESSION',
  // No CONVERSIONS: VisitsSummary.get has only nb_visits_converted, visits rather than conversions.
}

export const ACTIONS_METRICS: MetricMap = {
  nb_pageviews: 'PAGE_VIEWS',
  nb_uniq_pageviews: 'UNIQUE_PAGE_VIEWS',
}

/** Dimensions Matomo answers with a period series of `VisitsSummary.get` + `Actions.get`. */
export const PERIOD_DIMENSIONS: Readonly<Partial<Record<Dimension, string>>> = {
  DATE: 'day',
  WEEK: 'week',
  MONTH: 'month',
  YEAR: 'year',
}

export interface RowReport {
  /** The report, or the reports whose rows together make the breakdown (each answered and checked alone). */
  readonly method: string | readonly string[]
  /**
   * Whether to ask for `flat=1`: only the Actions reports, whose subtables are URL folders. Elsewhere a
   * subtable is a second dimension (event actions, campaign keywords, referrers of a type), and flat
   * would turn each row into `name - action` pairs (matomo-org/matomo@f09912cb:
   * core/API/DataTableManipulator/Flattener.php).
   */
  readonly flat?: true
  readonly metrics: MetricMap
  /** Which row key holds the dimension value (`code` for countries is the ISO code). */
  readonly valueOf: (row: { label: string; code?: string; url?: string; segment?: string }) => string
  /**
   * The config settings that cap this report's archived rows (matomo-org/matomo@f09912cb:
   * config/global.ini.php, default in parentheses); past the cap Matomo sums the rest into one "Others"
   * row. Undefined for a report archived without a cap.
   */
  readonly cap?: string
}

/** Which record builder reads which setting: see emulators/matomo/archiving.ts for the sources. */
const STANDARD_CAP = 'datatable_archiving_maximum_rows_standard (500)'
const ACTIONS_CAP =
  'datatable_archiving_maximum_rows_actions (500) and datatable_archiving_maximum_rows_subtable_actions (100, pages per folder)'
const REFERRERS_CAP = 'datatable_archiving_maximum_rows_referrers (1000)'

const label = (row: { label: string }) => row.label

/** Dimensions Matomo answers with a row report over the whole range (providers.md 12.3). */
export const ROW_REPORTS: Readonly<Partial<Record<Dimension, RowReport>>> = {
  PAGE: {
    method: 'Actions.getPageUrls',
    flat: true,
    metrics: PAGE_ROW_METRICS,
    valueOf: (r) => r.url ?? r.label,
    cap: ACTIONS_CAP,
  },
  PAGE_TITLE: {
    method: 'Actions.getPageTitles',
    flat: true,
    metrics: PAGE_ROW_METRICS,
    valueOf: label,
    cap: ACTIONS_CAP,
  },
  LANDING_PAGE: {
    method: 'Actions.getEntryPageUrls',
    flat: true,
    // The rate column is the processed metric `bounce_rate` (entry_bounce_count / entry_nb_visits);
    // Matomo has no `entry_bounce_rate` (plugins/Actions/Columns/Metrics/BounceRate.php).
    metrics: { entry_nb_visits: 'SESSIONS', bounce_rate: 'BOUNCE_RATE' },
    valueOf: (r) => r.url ?? r.label,
    cap: ACTIONS_CAP,
  },
  // Countries are archived without a row cap (plugins/UserCountry/RecordBuilders/Locations.php).
  COUNTRY: {
    method: 'UserCountry.getCountry',
    metrics: VISIT_ROW_METRICS,
    valueOf: (r) => (r.code ? r.code.toUpperCase() : r.label),
  },
  CITY: { method: 'UserCountry.getCity', metrics: VISIT_ROW_METRICS, valueOf: label, cap: STANDARD_CAP },
  DEVICE_TYPE: {
    method: 'DevicesDetection.getType',
    metrics: VISIT_ROW_METRICS,
    valueOf: label,
    cap: STANDARD_CAP,
  },
  BROWSER: {
    method: 'DevicesDetection.getBrowsers',
    metrics: VISIT_ROW_METRICS,
    valueOf: label,
    cap: STANDARD_CAP,
  },
  OS: {
    method: 'DevicesDetection.getOsFamilies',
    metrics: VISIT_ROW_METRICS,
    valueOf: label,
    cap: STANDARD_CAP,
  },
  // A session's source is its referrer name (search engine, website domain, social network, campaign),
  // so the breakdown is those four reports' rows. Not Referrers.getAll: it lists search keywords, not
  // engines (plugins/Referrers/API.php getReferrerType with idSubtable, matomo-org/matomo@f09912cb).
  SOURCE: {
    method: [
      'Referrers.getSearchEngines',
      'Referrers.getWebsites',
      'Referrers.getSocials',
      'Referrers.getCampaigns',
    ],
    metrics: VISIT_ROW_METRICS,
    valueOf: label,
    cap: REFERRERS_CAP,
  },
  // The referrer type's code (`search`, `website`…), as a session's medium reads it, from the row's
  // segment (`referrerType==search`; plugins/Referrers/API.php getReferrerType AddSegmentByLabelMapping,
  // matomo-org/matomo@f09912cb); the label is the type's display name.
  MEDIUM: {
    method: 'Referrers.getReferrerType',
    metrics: VISIT_ROW_METRICS,
    valueOf: (r) => /^referrerType==(\w+)$/.exec(r.segment ?? '')?.[1] ?? r.label,
    cap: REFERRERS_CAP,
  },
  CAMPAIGN: {
    method: 'Referrers.getCampaigns',
    metrics: VISIT_ROW_METRICS,
    valueOf: label,
    cap: REFERRERS_CAP,
  },
  EVENT_NAME: {
    method: 'Events.getName',
    metrics: { nb_events: 'EVENTS', nb_visits: 'SESSIONS' },
    valueOf: label,
    cap: 'datatable_archiving_maximum_rows_events (500)',
  },
}

export const MATOMO_DIMENSIONS = [...Object.keys(PERIOD_DIMENSIONS), ...Object.keys(ROW_REPORTS)]
