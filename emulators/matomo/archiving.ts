/**
 * Archiving-time truncation of report tables, as Matomo stores them: a table with more rows than its
 * cap keeps its `cap - 1` rows with the most visits and sums the others into one summary row (id -1),
 * which the API answers last, labelled "Others" in the request's language. The rows summed into it
 * are gone from the archive: no API parameter brings them back.
 *
 * Sources (matomo-org/matomo@f09912cb): core/DataTable.php getSerialized (Truncate at max - 1,
 * subtables at their own cap), core/DataTable/Filter/Truncate.php (no truncation while rows <= cap;
 * sort by the record's column, sum the rest with Row::sumRow), core/DataTable.php getRows (summary row
 * last), core/Archive.php createDataTableFromArchive and core/DataTable/Filter/ReplaceSummaryRowLabel.php
 * (label General_Others: lang/en.json "Others", lang/fr.json "Autres", lang/de.json "Andere").
 */

/** A report row as the Reporting API answers it (columns and metadata on one level). */
export type Row = Record<string, string | number | boolean>

/**
 * The `datatable_archiving_maximum_rows_*` settings the emulated reports are archived with; defaults from
 * matomo-org/matomo@f09912cb:config/global.ini.php. Which report uses which: plugins/Referrers/
 * RecordBuilders/Referrers.php (referrers), plugins/Actions/ArchivingHelper.php reloadConfig (actions),
 * plugins/Events/RecordBuilders/EventReports.php (events), plugins/UserCountry/RecordBuilders/
 * Locations.php (cities, regions: standard; countries: no cap), plugins/DevicesDetection/RecordBuilders/
 * Base.php (standard).
 */
export interface ArchivingRowLimits {
  readonly standard: number
  readonly referrers: number
  readonly subtable_referrers: number
  readonly actions: number
  readonly subtable_actions: number
  readonly events: number
  readonly subtable_events: number
}

export const DEFAULT_ARCHIVING_ROW_LIMITS: ArchivingRowLimits = {
  standard: 500,
  referrers: 1000,
  subtable_referrers: 50,
  actions: 500,
  subtable_actions: 100,
  events: 500,
  subtable_events: 500,
}

/** The summary row's label after ReplaceSummaryRowLabel, by language (lang/<code>.json General_Others). */
const SUMMARY_LABELS: Readonly<Record<string, string>> = { en: 'Others', fr: 'Autres', de: 'Andere' }

/**
 * The language a request is answered in: the `language` parameter when Matomo has it, else the user's
 * (matomo-org/matomo@f09912cb:plugins/LanguagesManager/LanguagesManager.php initLanguage).
 */
export function summaryLabel(requested: string | undefined, userLanguage: string): string {
  const language = requested && SUMMARY_LABELS[requested] ? requested : userLanguage
  return SUMMARY_LABELS[language] ?? 'Others'
}

/** Rows that are a table's summary row; JSON shows no marker, only the label and the last position. */
const summaryRows = new WeakSet<Row>()
export const isSummaryRow = (row: unknown): boolean =>
  typeof row === 'object' && row !== null && summaryRows.has(row as Row)

/** Columns Row::sumRow aggregates with `max` instead of a sum (core/Metrics.php, Row::sumRow ops). */
const MAX_COLUMNS = new Set(['max_actions', 'max_event_value'])
const MIN_COLUMNS = new Set(['min_event_value'])

/**
 * Row::sumRow: numeric columns add up (max/min where the record says so); metadata (code, url,
 * logo…) is not copied to a summary row (Truncate sums with $enableCopyMetadata = false).
 */
function sumRows(rows: readonly Row[], numeric: ReadonlySet<string>): Row {
  const out: Row = {}
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) {
      if (!numeric.has(k) || typeof v !== 'number') continue
      const prev = out[k]
      if (typeof prev !== 'number') out[k] = v
      else if (MAX_COLUMNS.has(k)) out[k] = Math.max(prev, v)
      else if (MIN_COLUMNS.has(k)) out[k] = Math.min(prev, v)
      else out[k] = prev + v
    }
  }
  return out
}

export interface SummaryOptions {
  readonly label: string
  /** The metric columns (sumRow adds them); other keys are metadata and stay off the summary row. */
  readonly numeric: ReadonlySet<string>
  /** Recomputes processed metrics (rates, averages) of the summary row from its summed columns. */
  readonly finish?: (row: Row) => Row
}

export interface TruncateOptions extends SummaryOptions {
  /** The table's cap (`datatable_archiving_maximum_rows_*`); Infinity for tables Matomo never cuts. */
  readonly max: number
}

/** A summary row summing `rows` (Row::sumRow), marked as the table's summary row. */
export function summaryRowOf(rows: readonly Row[], options: SummaryOptions): Row {
  const summed = sumRows(rows, options.numeric)
  const summary: Row = { label: options.label, ...(options.finish ? options.finish(summed) : summed) }
  summaryRows.add(summary)
  return summary
}

/**
 * Truncate at archiving: at most `max` rows; past that, the `max - 1` rows with the most visits stay
 * and the others become one summary row, last. Returns the rows in the order given (sorted by visits
 * descending, as the records are before truncation), the summary row appended.
 */
export function truncateTable(rows: readonly Row[], options: TruncateOptions): Row[] {
  if (rows.length <= options.max) return [...rows]
  const sorted = [...rows].sort((a, b) => Number(b.nb_visits ?? 0) - Number(a.nb_visits ?? 0))
  const kept = sorted.slice(0, options.max - 1)
  const summary = summaryRowOf(sorted.slice(options.max - 1), options)
  const keptSet = new Set(kept)
  return [...rows.filter((r) => keptSet.has(r)), summary]
}

/**
 * A flattened summary row: Flattener marks every summary row `is_summary: true` and, in a subtable,
 * prefixes the label with its parent's (matomo-org/matomo@f09912cb:core/API/DataTableManipulator/
 * Flattener.php flattenRow). This is the only summary-row marker JSON output carries.
 */
export function flattenedSummary(row: Row, parentLabel: string | undefined, separator: string): Row {
  const flat: Row = {
    ...row,
    label: parentLabel === undefined ? String(row.label) : `${parentLabel}${separator}${row.label}`,
    is_summary: true,
  }
  return flat
}
