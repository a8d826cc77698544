/**
 * Unified `offset`/`limit` onto a page-numbered API (`page` 1-based, `pageSize`): an offset that is a
 * multiple of the limit is one page; any other offset spans two pages of `limit` rows, cut on our side.
 */
export interface PageWindow {
  readonly pageSize: number
  /** 1-based page numbers to fetch, in order. */
  readonly pages: readonly number[]
  /** Rows to drop from the start of the first page. */
  readonly skip: number
}

export function pageWindow(offset: number, limit: number): PageWindow {
  const first = Math.floor(offset / limit) + 1
  const skip = offset % limit
  return { pageSize: limit, pages: skip === 0 ? [first] : [first, first + 1], skip }
}

/** Fetches the window's pages (stopping at a short page) and returns exactly the asked rows. */
export async function readWindow<T>(
  window: PageWindow,
  limit: number,
  fetchPage: (page: number, pageSize: number) => Promise<readonly T[]>,
): Promise<T[]> {
  const rows: T[] = []
  for (const page of window.pages) {
    const got = await fetchPage(page, window.pageSize)
    // One at a time: a page spread into push's arguments overflows the stack past some 100,000 rows, which
    // a provider answering far more than the page size asked (a self-hosted one) can send.
    for (const row of got) rows.push(row)
    if (got.length < window.pageSize) break
  }
  return rows.slice(window.skip, window.skip + limit)
}
