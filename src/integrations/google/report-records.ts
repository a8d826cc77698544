import type { UnifiedRecord } from '../../models/index.js'

export interface ReportMetricValue {
  readonly type: string
  readonly value: number
}

export interface ReportRowInput {
  readonly propertyId: string
  /** The bucket this row covers: the day, hour or month of a time dimension, else the whole range. */
  readonly start: Date
  readonly end: Date
  readonly dimension?: string
  readonly dimensionValue?: string
  readonly metrics: readonly ReportMetricValue[]
  readonly raw: Record<string, unknown>
}

/**
 * One unified report per provider row: the row's metrics, each tagged with the row's dimension. The id
 * names the property, the bucket and the dimension value, so the same row always has the same id.
 */
export function reportRecord(row: ReportRowInput): UnifiedRecord {
  const bucket = `${row.start.toISOString()}/${row.end.toISOString()}`
  const key = row.dimension ? `${row.dimension}=${row.dimensionValue ?? ''}` : 'total'
  return {
    id: `${row.propertyId}:${bucket}:${key}`,
    property_id: row.propertyId,
    start_at: row.start,
    end_at: row.end,
    metrics: row.metrics.map((m) => ({
      type: m.type,
      value: m.value,
      ...(row.dimension ? { dimension: row.dimension, dimension_value: row.dimensionValue } : {}),
    })),
    raw: row.raw,
  }
}

/** Google sends numbers as strings (GA4) or JSON numbers (YouTube); a non-number becomes undefined. */
export function numberOf(value: unknown): number | undefined {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : NaN
  return Number.isFinite(n) ? n : undefined
}
