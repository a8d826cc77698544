import type { FastifyRequest } from 'fastify'

/** DRF reads limit/offset leniently: anything that is not a positive integer falls back to the default. */
export function limitOffset(
  request: FastifyRequest,
  defaultLimit: number,
): { limit: number; offset: number } {
  const query = request.query as Record<string, unknown>
  const int = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined)
  const limit = int(query.limit)
  return { limit: limit && limit > 0 ? limit : defaultLimit, offset: int(query.offset) ?? 0 }
}

/** The request's own URL, absolute on the host it was called on, with some query parameters replaced. */
export function absoluteUrl(
  request: FastifyRequest,
  set: Readonly<Record<string, string>>,
  remove: string[] = [],
): string {
  const url = new URL(request.url, `${request.protocol}://${request.headers.host ?? 'localhost'}`)
  for (const name of remove) url.searchParams.delete(name)
  for (const [k, v] of Object.entries(set)) url.searchParams.set(k, v)
  return url.toString()
}

/**
 * DRF LimitOffsetPagination: `{count, next, previous, results}` with absolute `next`/`previous` links
 * (https://www.django-rest-framework.org/api-guide/pagination/#limitoffsetpagination).
 */
export function limitOffsetPage<T>(
  request: FastifyRequest,
  items: readonly T[],
  limit: number,
  offset: number,
): { count: number; next: string | null; previous: string | null; results: T[] } {
  const next =
    offset + limit < items.length
      ? absoluteUrl(request, { limit: String(limit), offset: String(offset + limit) })
      : null
  let previous: string | null = null
  if (offset > 0) {
    previous =
      offset - limit <= 0
        ? absoluteUrl(request, { limit: String(limit) }, ['offset'])
        : absoluteUrl(request, { limit: String(limit), offset: String(offset - limit) })
  }
  return { count: items.length, next, previous, results: items.slice(offset, offset + limit) }
}
