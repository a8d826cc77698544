import { badRequest, schemaError } from './errors.js'

export type Query = Readonly<Record<string, string | string[] | undefined>>

function one(q: Query, name: string): string | undefined {
  const v = q[name]
  return Array.isArray(v) ? v[v.length - 1] : v
}

/**
 * Umami's zod `z.coerce.number().int()` (and `.positive()` for `page`/`pageSize`): a whole number, or a
 * 400 naming the parameter (umami-software/umami@v3.1.0:src/lib/schema.ts `pagingParams`, `filterParams`).
 */
export function intParam(
  q: Query,
  name: string,
  opts: { required?: boolean; min?: number } = {},
): number | undefined {
  const raw = one(q, name)
  if (raw === undefined || raw === '') {
    if (opts.required) throw badRequest(`${name}: Required`)
    return undefined
  }
  const n = Number(raw)
  if (!Number.isInteger(n)) throw badRequest(`${name}: Expected integer, received '${raw}'`)
  if (opts.min !== undefined && n < opts.min)
    throw badRequest(`${name}: Number must be greater than or equal to ${opts.min}`)
  return n
}

export function strParam(q: Query, name: string): string | undefined {
  const v = one(q, name)
  return v === '' ? undefined : v
}

/**
 * `startAt`/`endAt` in unix milliseconds, both inclusive; without both (and without startDate/endDate)
 * the schema refuses the request; an inverted range is not refused, it just matches nothing
 * (umami-software/umami@v3.1.0:src/lib/schema.ts `withDateRange`). The `startDate`/`endDate` form is not
 * modelled: the emulator refuses a request that has only that.
 */
export function rangeOf(q: Query): { startAt: number; endAt: number } {
  const startAt = intParam(q, 'startAt')
  const endAt = intParam(q, 'endAt')
  if (startAt === undefined || endAt === undefined) {
    throw schemaError(['Either startAt+endAt or startDate+endDate must be provided'])
  }
  return { startAt, endAt }
}

export function pagingOf(q: Query, defaultSize: number): { page: number; pageSize: number } {
  return {
    page: intParam(q, 'page', { min: 1 }) ?? 1,
    pageSize: intParam(q, 'pageSize', { min: 1 }) ?? defaultSize,
  }
}

export function isUuidLike(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
}
