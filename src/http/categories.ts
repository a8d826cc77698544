import { badRequest, listedNames } from '../errors.js'
import { CATEGORIES, type Category } from '../models/index.js'

/**
 * A categories query parameter (`categories=hris,crm`, repeated or comma-joined): the categories asked
 * for, or undefined when none. A name this server has no models for is a 400 naming the parameter, so a
 * typo does not answer an empty list that looks like "no integrations".
 */
export function parseCategories(
  name: string,
  value: string | readonly string[] | undefined,
): Category[] | undefined {
  if (value === undefined) return undefined
  const names = (typeof value === 'string' ? [value] : value).flatMap((c) => c.split(',')).filter(Boolean)
  const unknown = names.filter((c) => !(CATEGORIES as readonly string[]).includes(c))
  if (unknown.length > 0) {
    throw badRequest(`${name}: ${listedNames(unknown)} not served here; use ${CATEGORIES.join(', ')}`)
  }
  // Each once: every name became a term of the connection list's query, and SQLite refuses more than a
  // thousand (a 500 for `categories=crm,crm,…`).
  return names.length > 0 ? ([...new Set(names)] as Category[]) : undefined
}
