import { type OrderByExpression, type SelectQueryBuilder, sql } from 'kysely'

/** One page of a list endpoint's rows. */
export interface PageRequest<Sort extends string> {
  readonly sort: Sort
  readonly order: 'asc' | 'desc'
  readonly limit: number
  readonly offset: number
}

/**
 * Orders by the requested column, then by `id` (every listed table has one) in the same direction, so rows
 * sharing a timestamp keep one order and pages neither overlap nor skip; then cuts the page.
 */
export function paged<DB, TB extends keyof DB, O, Sort extends string & OrderByExpression<DB, TB, O>>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest<Sort>,
): SelectQueryBuilder<DB, TB, O> {
  return inPageOrder(query, page).limit(page.limit).offset(page.offset)
}

/** The order `paged` cuts its pages in, for reading the rows of a page whose ids were cut already. */
export function inPageOrder<DB, TB extends keyof DB, O, Sort extends string & OrderByExpression<DB, TB, O>>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: Pick<PageRequest<Sort>, 'sort' | 'order'>,
): SelectQueryBuilder<DB, TB, O> {
  return query.orderBy(page.sort, page.order).orderBy(sql.ref('id'), page.order)
}
