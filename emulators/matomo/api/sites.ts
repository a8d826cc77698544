import { isValidTimezone } from '../calendar.js'
import { MatomoApiError, requireParam } from '../errors.js'
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

/** A limit parameter of the site listings: an integer or nothing. */
function limitOf(params: Params): number | undefined {
  const v = params.limit
  if (v === undefined || v === '') return undefined
  if (!/^\d+$/.test(v)) throw new MatomoApiError(`The parameter 'limit' must be an integer, '${v}' given.`)
  return Number(v)
}

/** The sites the token may view, by id; listings leave the others out, they do not fail. */
const sorted = (state: MatomoState, params: Params) =>
  [...state.sites.values()]
    .filter((s) => state.canView(params.token_auth, s.idsite as string))
    .sort((a, b) => Number(a.idsite) - Number(b.idsite))

export const SITES_METHODS: Readonly<Record<string, MethodHandler>> = {
  'SitesManager.getSitesWithAtLeastViewAccess': (state, params) => {
    const limit = limitOf(params)
    const all = sorted(state, params)
    return applyLimit(limit === undefined ? all : all.slice(0, limit), params, -1)
  },
  'SitesManager.getPatternMatchSites': (state, params) => {
    const pattern = requireParam(params, 'pattern').toLowerCase()
    const limit = limitOf(params)
    const found = sorted(state, params).filter(
      (s) =>
        s.idsite === pattern ||
        s.name?.toLowerCase().includes(pattern) ||
        s.main_url?.toLowerCase().includes(pattern),
    )
    return limit === undefined ? found : found.slice(0, limit)
  },
  'SitesManager.getSitesFromGroup': (state, params) =>
    sorted(state, params).filter((s) => s.group === (params.group ?? '')),
  'SitesManager.getSiteFromId': (state, params) => siteParam(state, params),
  'SitesManager.addSite': (state, params) => {
    requireParam(params, 'siteName')
    checkSettings(params)
    const site = state.addSite({ ...params, 'urls[0]': urlsOf(params)[0] ?? '' })
    return { value: Number(site.idsite) }
  },
  'SitesManager.updateSite': (state, params) => {
    const site = siteParam(state, params)
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
    const site = siteParam(state, params)
    if (state.sites.size === 1) {
      throw new MatomoApiError('Please add another website before deleting the last one.')
    }
    state.deleteSite(site.idsite as string)
    return OK
  },
}
