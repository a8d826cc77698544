import { createHash } from 'node:crypto'
import type { UnifiedRecord } from '../models/index.js'

/** What the caller asked for, used where a report record does not say it itself. */
export interface ReportAsk {
  readonly property_id?: string
  readonly dimension?: string
  readonly type?: string
}

const iso = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : ''

const distinct = (values: unknown[]): string =>
  [...new Set(values.filter((v): v is string => typeof v === 'string'))].sort().join(',')

/**
 * A report's id, which providers do not have: the first 16 hex digits of the SHA-256 of its property,
 * window, dimensions and metric types (`property_id|start_at|end_at|dimensions|types`). The same report
 * asked again gets the same id, on any integration.
 */
export function reportId(record: UnifiedRecord, asked: ReportAsk = {}): string {
  const metrics = Array.isArray(record.metrics) ? (record.metrics as Record<string, unknown>[]) : []
  const key = [
    typeof record.property_id === 'string' ? record.property_id : (asked.property_id ?? ''),
    iso(record.start_at),
    iso(record.end_at),
    distinct([asked.dimension, ...metrics.map((m) => m?.dimension)]),
    distinct([asked.type, ...metrics.map((m) => m?.type)]),
  ].join('|')
  return createHash('sha256').update(key).digest('hex').slice(0, 16)
}

/** Gives every report of a list its id; a second report with the same key gets `-2`, `-3`... in list order. */
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
