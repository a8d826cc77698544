import { isSummaryRow } from '../archiving.js'
import { MatomoApiError, MatomoNoAccessError, requireParam } from '../errors.js'
import type { MatomoState } from '../state.js'

export type Params = Readonly<Record<string, string>>
export type MethodHandler = (state: MatomoState, params: Params) => unknown

/**
 * An integer request parameter as Common::getRequestVar reads it: a value that is not an integer falls
 * back to the default, or, without one, is an error its caller may swallow
 * (matomo-org/matomo@f09912cb:core/Common.php getRequestVar).
 */
function integer(params: Params, name: string): number | undefined | 'invalid' {
  const v = params[name]
  if (v === undefined) return undefined
  return /^-?\d+$/.test(v) ? Number(v) : 'invalid'
}

/**
 * Matomo's generic `filter_offset`/`filter_limit`, -1 for all. Over HTTP a request without `filter_limit`
 * gets API_datatable_default_limit = 100, whatever the method, lists of sites included
 * (matomo-org/matomo@f09912cb:plugins/API/Controller.php index sets it before the call;
 * config/global.ini.php; core/API/DataTableGenericFilter.php for reports, core/API/ResponseBuilder.php
 * handleArray for plain lists; nested bulk requests see the same default). The summary row counts as the last
 * row: a limit that cuts the table drops it, unless `keep_summary_row=1` puts it back
 * (core/DataTable/Filter/Limit.php, core/DataTable.php deleteRowsOffset); `filter_limit=-1` keeps it.
 */
export function applyLimit<T>(rows: readonly T[], params: Params, whenInvalid: 'all' | number = 'all'): T[] {
  const rawLimit = integer(params, 'filter_limit')
  // A filter_limit that is no integer makes the generic Limit filter fail, so it is skipped, offset
  // included (core/API/DataTableGenericFilter.php applyGenericFilters); plain lists fall back to -1
  // (core/API/ResponseBuilder.php handleArray); Live to its own 10 (plugins/Live/API.php).
  if (rawLimit === 'invalid' && whenInvalid === 'all') return [...rows]
  const rawOffset = integer(params, 'filter_offset')
  const offset = typeof rawOffset === 'number' ? Math.max(0, rawOffset) : 0
  const limit = rawLimit === undefined ? 100 : rawLimit === 'invalid' ? (whenInvalid as number) : rawLimit
  const page = limit < 0 ? rows.slice(offset) : rows.slice(offset, offset + limit)
  const summary = rows[rows.length - 1]
  if (params.keep_summary_row === '1' && isSummaryRow(summary) && !page.includes(summary as T)) {
    page.push(summary as T)
  }
  return page
}

/**
 * `idSite` must name a site the token may view: without view access Matomo throws NoAccessException
 * (HTTP 401) before looking the site up (matomo-org/matomo@f09912cb:core/Access.php
 * checkUserHasViewAccess, lang/en.json General_ExceptionPrivilegeAccessWebsite); a super user asking
 * for a site that does not exist gets UnexpectedWebsiteFoundException, HTTP 200
 * (core/Exception/UnexpectedWebsiteFoundException.php is no HttpCodeException).
 */
export function siteParam(state: MatomoState, params: Params) {
  const id = requireParam(params, 'idSite')
  if (!state.canView(params.token_auth, id)) {
    throw new MatomoNoAccessError(
      `You can't access this resource as it requires 'view' access for the website id = ${Number.parseInt(id, 10) || 0}.`,
    )
  }
  const site = /^\d+$/.test(id) ? state.sites.get(id) : undefined
  if (!site)
    throw new MatomoApiError(
      `An unexpected website was found in the request: website id was set to '${id}' .`,
    )
  return site
}
