/** Harvest's largest page (`per_page` "between 1 and 500", developers.greenhouse.io/harvest.html#pagination). */
export const MAX_PER_PAGE = 500

export interface PagePlan {
  readonly perPage: number
  /** The 1-based page the window starts in. */
  readonly page: number
  /** Rows of that page before the window. */
  readonly skip: number
}

/**
 * Unified `offset`/`limit` onto Harvest's numbered pages: the smallest page size that holds the whole window
 * in one page (one call, nothing wasted past the window's page), else pages of 500 from the one holding
 * `offset`, continued through the `next` links.
 */
export function planPages(offset: number, limit: number): PagePlan {
  for (let size = Math.min(limit, MAX_PER_PAGE); size <= MAX_PER_PAGE; size++) {
    const first = Math.floor(offset / size)
    if (first === Math.floor((offset + limit - 1) / size))
      return { perPage: size, page: first + 1, skip: offset - first * size }
  }
  const first = Math.floor(offset / MAX_PER_PAGE)
  return { perPage: MAX_PER_PAGE, page: first + 1, skip: offset - first * MAX_PER_PAGE }
}
