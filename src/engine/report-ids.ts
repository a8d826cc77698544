import { createHash } from 'node:crypto'
import type { UnifiedRecord } from '../models/index.js'

/** What the caller asked for: part of a report's identity, and used where the record does not say it. */
export interface ReportAsk {
  readonly property_id?: string
  readonly start_gte?: string
  readonly end_lt?: string
  readonly dimension?: string
  readonly type?: string
}

/**
 * The day (UTC) of a report bound. A window the provider defaults ends "now", which moves by the
 * millisecond: the day keeps the id of the same report stable across pages and repeated asks.
 */
const day = (value: unknown): string => {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined
  return date && !Number.isNaN(date.getTime()) ? date.toISOString().slice(0, 10) : ''
}

const distinct = (values: unknown[]): string =>
  [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))].sort().join(',')

/**
 * A report's id, which providers do not have: the first 16 hex digits of the SHA-256 of
 * `property_id|start_gte|end_lt|start day|end day|dimensions|types`, then `|dimension values` where the
 * metrics carry any (the window as asked, the record's window to the UTC day, dimensions, metric types and
 * dimension values sorted). The same report asked again gets the same id, on any integration and on any
 * page: the rows of a breakdown (a country, an hour of one day) differ by their dimension value, not by
 * where they fall in the list.
 */
export function reportId(record: UnifiedRecord, asked: ReportAsk = {}): string {
  const metrics = Array.isArray(record.metrics) ? (record.metrics as Record<string, unknown>[]) : []
  const values = distinct(metrics.map((m) => m?.dimension_value))
  const key = [
    typeof record.property_id === 'string' ? record.property_id : (asked.property_id ?? ''),
    asked.start_gte ?? '',
    asked.end_lt ?? '',
    day(record.start_at),
    day(record.end_at),
    distinct([asked.dimension, ...metrics.map((m) => m?.dimension)]),
    distinct([asked.type, ...metrics.map((m) => m?.type)]),
    // Only where there are values, so the id of a report without a breakdown is what it always was.
    ...(values ? [values] : []),
  ].join('|')
  return createHash('sha256').update(key).digest('hex').slice(0, 16)
}

/**
 * Gives every report of a list its id; a second report with the same key (the same dimension value too) gets
 * `-2`, `-3`... in list order.
 */
export function withReportIds(records: UnifiedRecord[], asked: ReportAsk = {}): UnifiedRecord[] {
  const seen = new Map<string, number>()
  return records.map((r) => {
    if (typeof r.id === 'string' && r.id !== '') return r
    const base = reportId(r, asked)
    const n = (seen.get(base) ?? 0) + 1
    seen.set(base, n)
    return { ...r, id: n === 1 ? base : `${base}-${n}` }
  })
}
