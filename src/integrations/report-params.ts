import { badRequest } from '../errors.js'
import { DIMENSIONS, METRIC_TYPES } from '../models/index.js'
import type { ListQuery } from './types.js'

export interface ReportParams {
  /** The metric types asked for (`type`, comma-separated allowed); undefined means all the provider has. */
  readonly types?: ReadonlySet<string>
  /** The one dimension asked for, if any. */
  readonly dimension?: string
}

/**
 * Reads the report filters `type` and `dimension` and refuses values outside the unified enums (400), so
 * providers only have to decide which valid values they can serve (501 for the others).
 */
export function reportParamsOf(query: ListQuery): ReportParams {
  const type = query.filters.type
  const dimension = query.filters.dimension
  let types: Set<string> | undefined
  if (typeof type === 'string') {
    types = new Set(
      type
        .split(',')
        .map((t) => t.trim().toUpperCase())
        .filter(Boolean),
    )
    const unknown = [...types].filter((t) => !(METRIC_TYPES as readonly string[]).includes(t))
    if (unknown.length > 0) {
      throw badRequest(
        `type: ${unknown.join(', ')} is not a report metric; use one of ${METRIC_TYPES.join(', ')}`,
      )
    }
  }
  let dim: string | undefined
  if (typeof dimension === 'string') {
    dim = dimension.trim().toUpperCase()
    if (dim.includes(',')) throw badRequest('dimension: give one dimension per report request')
    if (!(DIMENSIONS as readonly string[]).includes(dim)) {
      throw badRequest(
        `dimension: '${dimension}' is not a report dimension; use one of ${DIMENSIONS.join(', ')}`,
      )
    }
  }
  return { ...(types ? { types } : {}), ...(dim ? { dimension: dim } : {}) }
}
