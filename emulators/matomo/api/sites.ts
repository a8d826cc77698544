import { isValidTimezone } from '../calendar.js'
import { MatomoApiError, MatomoNoAccessError, requireParam } from '../errors.js'
import type { MatomoState } from '../state.js'
import { applyLimit, type MethodHandler, type Params, siteParam } from './params.js'

const OK = { result: 'success', message: 'ok' }

function urlsOf(params: Params): string[] {
  return Object.keys(params)
    .filter((k) => /^urls\[\d+\]$/.test(k))
    .sort((a, b) => Number(a.slice(5, -1)) - Number(b.slice(5, -1)))
    .map((k) => params[k] as string)
}

/**
 * Site settings validation, in Matomo's words (matomo-org/matomo@f09912cb:plugins/SitesManager/API.php
 * checkValidTimezone, checkValidCurrency, checkUrls; lang/en.json SitesManager_Exception*).
 */
function checkSettings(params: Params): void {
  if (params.timezone !== undefined && !isValidTimezone(params.timezone)) {
    throw new MatomoApiError(`The timezone "${params.timezone}" is not valid. Please enter a valid timezone.`)
  }
  if (params.currency !== undefined && !/^[A-Z]{3}$/.test(params.currency)) {
    throw new MatomoApiError(
      `The currency "${params.currency}" is not valid. Please enter a valid currency symbol (eg. 'EUR')`,
    )
  }
  for (const url of urlsOf(params)) {
    if (!/^https?:\/\/[^\s/]+/.test(url)) throw new MatomoApiError(`The url '${url}' is not a valid URL.`)
  }
}

/**
 * The site listings' own `limit`: any value PHP finds true becomes `LIMIT (int)value`, so a
 * non-numeric one lists nothing (matomo-org/matomo@f09912cb:plugins/SitesManager/Model.php
 * getSitesFromIds; getPatternMatchSites would take "0" as LIMIT 0, which is not modelled).
 */
function limitOf(params: Params): number | undefined {
  const v = params.limit
  if (v === undefined || v === '' || v === '0') return undefined
  const n = Number.parseInt(v, 10)
  return Number.isNaN(n) ? 0 : n
}

/**
 * A site as answered to this token: only super users see `creator_login`
 * (matomo-org/matomo@f09912cb:plugins/SitesManager/API.php enrichSite).
 */
function shown(state: MatomoState, params: Params, site: Readonly<Record<string, string>>) {
  if (state.isSuperUser(params.token_auth)) return site
  const { creator_login: _hidden, ...rest } = site
  return rest
}

/** The sites the token may view, by id; listings leave the others out, they do not fail. */
const sorted = (state: MatomoState, params: Params) =>
  [...state.sites.values()]
    .filter((s) => state.canView(params.token_auth, s.idsite as string))
    .sort((a, b) => Number(a.idsite) - Number(b.idsite))
    .map((s) => shown(state, params, s))

/**
 * Adding, deleting and listing by group need a super user; updating needs admin access to the site, which
 * the emulator's restricted (view-only) tokens lack (matomo-org/matomo@f09912cb:plugins/SitesManager/
 * API.php addSite, deleteSite, getSitesFromGroup, updateSite; core/Access.php, lang/en.json
 * General_ExceptionPrivilege, General_ExceptionPrivilegeAccessWebsite).
 */
function requireSuperUser(state: MatomoState, params: Params): void {
  if (!state.isSuperUser(params.token_auth)) {
    throw new MatomoNoAccessError("You can't access this resource as it requires a 'superuser' access.")
  }
}

function requireAdmin(state: MatomoState, params: Params, idSite: string): void {
  if (!state.isSuperUser(params.token_auth)) {
    throw new MatomoNoAccessError(
      `You can't access this resource as it requires 'admin' access for the website id = ${Number.parseInt(idSite, 10) || 0}.`,
    )
  }
}

export const SITES_METHODS: Readonly<Record<string, MethodHandler>> = {
  'SitesManager.getSitesWithAtLeastViewAccess': (state, params) => {
    const limit = limitOf(params)
    const all = sorted(state, params)
    return applyLimit(limit === undefined ? all : all.slice(0, limit), params)
  },
  // Name or URL contains the pattern, or the pattern is the site id (plugins/SitesManager/Model.php
  // getPatternMatchSites), among the sites the token may view.
  'SitesManager.getPatternMatchSites': (state, params) => {
    const pattern = requireParam(params, 'pattern').toLowerCase()
    const limit = limitOf(params)
    const found = sorted(state, params).filter(
      (s) =>
        s.idsite === pattern ||
        s.name?.toLowerCase().includes(pattern) ||
        s.main_url?.toLowerCase().includes(pattern),
    )
    return applyLimit(limit === undefined ? found : found.slice(0, limit), params)
  },
  'SitesManager.getSitesFromGroup': (state, params) => {
    requireSuperUser(state, params)
    return applyLimit(
      sorted(state, params).filter((s) => s.group === (params.group ?? '').trim()),
      params,
    )
  },
  'SitesManager.getSiteFromId': (state, params) => shown(state, params, siteParam(state, params)),
  'SitesManager.addSite': (state, params) => {
    requireSuperUser(state, params)
    requireParam(params, 'siteName')
    checkSettings(params)
    const site = state.addSite({ ...params, 'urls[0]': urlsOf(params)[0] ?? '' })
    return { value: Number(site.idsite) }
  },
  'SitesManager.updateSite': (state, params) => {
    const site = siteParam(state, params)
    requireAdmin(state, params, site.idsite as string)
    checkSettings(params)
    if (params.siteName !== undefined) {
      if (params.siteName === '') throw new MatomoApiError("Please specify a value for 'siteName'.")
      site.name = params.siteName
    }
    if (params.timezone !== undefined) site.timezone = params.timezone
    if (params.currency !== undefined) site.currency = params.currency
    if (params.group !== undefined) site.group = params.group
    if (params.ecommerce !== undefined) site.ecommerce = params.ecommerce === '1' ? '1' : '0'
    const [url] = urlsOf(params)
    if (url !== undefined) site.main_url = url
    return OK
  },
  // matomo-org/matomo@f09912cb:plugins/SitesManager/API.php deleteSite (the last site cannot go).
  'SitesManager.deleteSite': (state, params) => {
    requireSuperUser(state, params)
    const site = siteParam(state, params)
    if (state.sites.size === 1) {
      throw new MatomoApiError('Please add another website before deleting the last one.')
    }
    state.deleteSite(site.idsite as string)
    return OK
  },
}
