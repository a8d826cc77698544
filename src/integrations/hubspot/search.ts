import { badRequest } from '../../errors.js'
import type { ListQuery } from '../types.js'
import { SORT_PROPERTIES } from './properties.js'
import type { HubspotFilter, HubspotSearchRequest } from './types.js'

/**
 * HubSpot's search answers at most 10,000 results for one query: paging past them is refused
 * (https://developers.hubspot.com/docs/guides/api/crm/search, "Limitations").
 */
export const SEARCH_RESULT_CAP = 10_000

/**
 * Filters one group may hold: "a maximum of five filterGroups with up to 6 filters in each group, with a
 * maximum of 18 filters in total" (https://developers.hubspot.com/docs/guides/api/crm/search, "Filter search
 * results"), the strictest of HubSpot's statements (its 2024 changelog allowed 10 per group, the spec says "Up
 * to 6 groups"; see emulators/hubspot/routes/search.ts). Unigate sends one group, so the group's limit is
 * the one that binds. The unified filters fill at most four, so the id bound of a keyset page always fits
 * beside them; `searchRequest` still refuses, naming the parameters, a request past the limit.
 */
export const MAX_FILTERS_PER_GROUP = 6

/**
 * Whether a search pages by id instead of by offset. In id order (no caller sort) ids never tie, so each
 * page can be a fresh search for the ids past the last one seen: it is never more than one page into its
 * query, so HubSpot's 10,000-result cap never applies. This is the workaround HubSpot's community gives for
 * the cap (sort by `hs_object_id`, filter `hs_object_id GT <last id>`:
 * https://community.hubspot.com/t5/APIs-Integrations/CRM-Record-ID-Sequencing-and-the-Search-API/td-p/927832).
 * A caller's sort has ties, so no such bound exists and those searches keep the cap.
 */
export function pagesById(q: ListQuery): boolean {
  return q.sort === undefined
}

/**
 * The longest text `query` a search takes: "The search query string, up to 3000 characters"
 * (HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json,
 * PublicObjectSearchRequest.query).
 */
export const MAX_QUERY_CHARS = 3000

/** A search page holds at most 200 results (`PublicObjectSearchRequest.limit`: "up to 200 objects"). */
export const MAX_SEARCH_PAGE = 200

/**
 * Whether a list needs the search endpoint: the plain list (`GET /crm/v3/objects/contacts`) takes no
 * filter, no sort and no text query, only a cursor.
 */
export function needsSearch(q: ListQuery): boolean {
  return (
    q.updated_gte !== undefined ||
    q.sort !== undefined ||
    q.order !== undefined ||
    q.query !== undefined ||
    Object.keys(q.filters).length > 0
  )
}

/**
 * The unified list parameters as one filter group (filters in a group are ANDed). Dates are epoch
 * milliseconds, as HubSpot compares date-time properties (search guide, "Filter search results");
 * `associations.<object>` filters by an associated record's id (search guide, "Search through associations").
 */
export function searchFilters(q: ListQuery): HubspotFilter[] {
  const filters: HubspotFilter[] = []
  if (q.updated_gte) {
    filters.push({
      propertyName: 'lastmodifieddate',
      operator: 'GTE',
      value: String(q.updated_gte.getTime()),
    })
  }
  // Any value that is no HubSpot id could never match, so it is refused.
  const text = (name: string) => {
    const v = q.filters[name]
    if (typeof v !== 'string') return undefined
    if (!isHubspotId(v))
      throw badRequest(`${name}: '${v}' is not a HubSpot id; HubSpot ids are whole numbers`)
    return v
  }
  const user = text('user_id')
  if (user !== undefined) filters.push({ propertyName: 'hubspot_owner_id', operator: 'EQ', value: user })
  const company = text('company_id')
  if (company !== undefined)
    filters.push({ propertyName: 'associations.company', operator: 'EQ', value: company })
  const deal = text('deal_id')
  if (deal !== undefined) filters.push({ propertyName: 'associations.deal', operator: 'EQ', value: deal })
  return filters
}

/** Which unified parameter each search filter stands for, to name them in a refusal. */
const PARAMETER_OF: Readonly<Record<string, string>> = {
  lastmodifieddate: 'updated_gte',
  hubspot_owner_id: 'user_id',
  'associations.company': 'company_id',
  'associations.deal': 'deal_id',
  hs_object_id: 'offset (the id bound of the next page)',
}

/**
 * A search HubSpot would refuse for its filter count is a 400 naming the unified parameters behind the filters,
 * never HubSpot's VALIDATION_ERROR passed on. The unified filters make at most five today, within the six a
 * group takes; this keeps a future filter from turning into a provider error.
 */
export function checkFilterCount(filters: readonly HubspotFilter[]): void {
  if (filters.length <= MAX_FILTERS_PER_GROUP) return
  const named = [...new Set(filters.map((f) => PARAMETER_OF[f.propertyName] ?? f.propertyName))]
  throw badRequest(
    `${named.join(', ')}: together these need ${filters.length} HubSpot search filters, and HubSpot's search ` +
      `takes at most ${MAX_FILTERS_PER_GROUP} in a group; leave out some of them`,
  )
}

/** HubSpot record and owner ids (`hs_object_id`, `hubspot_owner_id`) are whole numbers. */
export function isHubspotId(value: string): boolean {
  return /^\d+$/.test(value)
}

/**
 * The search body for one page. Without `sort`, results come in id order (`hs_object_id`), the plain list's
 * order, so a page of a filtered list is stable between calls; `order` alone reverses that. `cursor` is
 * where the page starts: in id order the last id before it (an `hs_object_id` bound in the caller's filter
 * group, so the filters stay ANDed), otherwise HubSpot's `after` offset.
 */
export function searchRequest(
  q: ListQuery,
  properties: readonly string[],
  limit: number,
  cursor: string | undefined,
): HubspotSearchRequest {
  const filters = searchFilters(q)
  const sortProperty = q.sort === undefined ? 'hs_object_id' : SORT_PROPERTIES[q.sort]
  if (!sortProperty) throw badRequest(`sort: HubSpot cannot sort contacts by '${q.sort}'`)
  const byId = pagesById(q)
  if (byId && cursor !== undefined) {
    filters.push({ propertyName: 'hs_object_id', operator: q.order === 'desc' ? 'LT' : 'GT', value: cursor })
  }
  checkFilterCount(filters)
  if (q.query !== undefined && [...q.query].length > MAX_QUERY_CHARS) {
    throw badRequest(
      `query: HubSpot's search takes a text query of at most ${MAX_QUERY_CHARS} characters; this one has ${[...q.query].length}`,
    )
  }
  const after = byId ? undefined : cursor
  return {
    filterGroups: filters.length > 0 ? [{ filters }] : [],
    sorts: [{ propertyName: sortProperty, direction: q.order === 'desc' ? 'DESCENDING' : 'ASCENDING' }],
    ...(q.query !== undefined ? { query: q.query } : {}),
    properties: [...properties],
    limit,
    ...(after !== undefined ? { after } : {}),
  }
}
