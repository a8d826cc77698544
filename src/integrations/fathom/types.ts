/** Fathom API shapes (providers.md section 9; usefathom.com/api). */

export type FathomSite = {
  id: string
  object: 'site'
  name: string
  sharing: 'none' | 'private' | 'public'
  /** `2020-07-27 12:01:01`, UTC. */
  created_at: string
  timezone?: string
  [key: string]: unknown
}

export type FathomList<T> = { object: 'list'; url: string; has_more: boolean; data: T[] }

/** One aggregation row: aggregates (often numbers as strings) plus the grouping keys. */
export type FathomRow = Record<string, string | number | null>
