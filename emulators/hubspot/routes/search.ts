import type { FastifyInstance } from 'fastify'
import { requireScope } from '../auth.js'
import { propertiesJson, propertyValue } from '../contact-json.js'
import { validation } from '../errors.js'
import type { ContactRecord, HubspotState } from '../state.js'

/**
 * `POST /crm/v3/objects/contacts/search` (HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json, PublicObjectSearchRequest;
 * https://developers.hubspot.com/docs/guides/api/crm/search): filter groups ORed, filters in a group ANDed;
 * one sort; `limit` up to 200 (the spec) and at most 10,000 results per query (the search page, "Limitations").
 *
 * Filter limits: HubSpot's sources disagree. The current search guide says "You can include a maximum of five
 * filterGroups with up to 6 filters in each group, with a maximum of 18 filters in total. If you've included
 * too many groups or filters, you'll receive a VALIDATION_ERROR error response"
 * (https://developers.hubspot.com/docs/guides/api/crm/search, "Filter search results"; the page itself was not
 * in our look-up tools' store, the sentence is as HubSpot's own MCP server's search tool and several clients
 * quote it); the August 2024 changelog allowed 5 groups, 10 per group and 25 in all
 * (https://developers.hubspot.com/changelog/breaking-change-expanded-filtering-capabilities-and-error-messaging-in-hubspots-search-api);
 * the spec's `filterGroups` says "Up to 6 groups of filters". The emulator holds to the strictest of each: 5
 * groups (guide and changelog), 6 per group and 18 in all (the guide), a 400 VALIDATION_ERROR past them (the
 * messages are ours). A connector within these is within every one of them.
 */
const MAX_GROUPS = 5
const MAX_PER_GROUP = 6
const MAX_FILTERS = 18
const MAX_LIMIT = 200
/** "The search query string, up to 3000 characters" (PublicObjectSearchRequest.query in the spec above). */
const MAX_QUERY_CHARS = 3000
const RESULT_CAP = 10_000

/** Contact properties the text `query` looks in (https://developers.hubspot.com/docs/guides/api/crm/search, "Search default searchable properties"). */
const SEARCHABLE = [
  'firstname',
  'lastname',
  'email',
  'phone',
  'hs_additional_emails',
  'fax',
  'mobilephone',
  'company',
]

/** Date-time properties compare as instants; a filter value may be epoch milliseconds or ISO-8601 (https://developers.hubspot.com/docs/guides/api/crm/search). */
const DATE_PROPERTIES = new Set(['createdate', 'lastmodifieddate'])
/**
 * Record ids compare as numbers: HubSpot's answer to the 10,000 cap is to sort by `hs_object_id` and search
 * again with `hs_object_id GT <last id>` (https://community.hubspot.com/t5/APIs-Integrations/CRM-Record-ID-Sequencing-and-the-Search-API/td-p/927832).
 */
const NUMERIC = new Set(['hs_object_id'])

interface Filter {
  propertyName?: string
  operator?: string
  value?: unknown
  values?: unknown[]
}

function comparable(property: string, value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined
  if (DATE_PROPERTIES.has(property)) {
    const n = /^\d+$/.test(value) ? Number(value) : Date.parse(value)
    return Number.isNaN(n) ? undefined : n
  }
  if (NUMERIC.has(property)) return Number(value)
  return value.toLowerCase()
}

function matches(c: ContactRecord, f: Filter): boolean {
  const name = f.propertyName as string
  const assoc = /^associations\.(company|deal)$/.exec(name)
  if (assoc) {
    const ids = assoc[1] === 'company' ? c.companies : c.deals
    return f.operator === 'EQ' ? ids.has(String(f.value)) : !ids.has(String(f.value))
  }
  const have = comparable(name, propertyValue(c, name))
  const want = comparable(name, f.value === undefined ? undefined : String(f.value))
  switch (f.operator) {
    case 'HAS_PROPERTY':
      return have !== undefined
    case 'NOT_HAS_PROPERTY':
      return have === undefined
    case 'EQ':
      return have !== undefined && have === want
    case 'NEQ':
      return have !== want
    case 'IN':
      return have !== undefined && (f.values ?? []).some((v) => comparable(name, String(v)) === have)
    case 'GT':
      return have !== undefined && want !== undefined && have > want
    case 'GTE':
      return have !== undefined && want !== undefined && have >= want
    case 'LT':
      return have !== undefined && want !== undefined && have < want
    case 'LTE':
      return have !== undefined && want !== undefined && have <= want
    default:
      return false
  }
}

const OPERATORS = ['EQ', 'NEQ', 'GT', 'GTE', 'LT', 'LTE', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY', 'IN']

function checkGroups(groups: unknown): Filter[][] {
  if (groups === undefined) return []
  if (!Array.isArray(groups)) throw validation('Invalid input JSON: filterGroups must be an array')
  if (groups.length > MAX_GROUPS)
    throw validation(`Too many filter groups: at most ${MAX_GROUPS} are allowed`)
  const out = groups.map((g) => ((g as { filters?: Filter[] }).filters ?? []) as Filter[])
  if (out.some((f) => f.length > MAX_PER_GROUP))
    throw validation(`Too many filters in a group: at most ${MAX_PER_GROUP} are allowed`)
  if (out.flat().length > MAX_FILTERS)
    throw validation(`Too many filters: at most ${MAX_FILTERS} are allowed`)
  for (const f of out.flat()) {
    if (typeof f.propertyName !== 'string' || !OPERATORS.includes(String(f.operator))) {
      throw validation(
        `Invalid filter: ${JSON.stringify(f)}; the emulator supports the operators ${OPERATORS.join(', ')}`,
      )
    }
  }
  return out
}

/** Sorts as `{propertyName, direction}` (https://developers.hubspot.com/docs/guides/api/crm/search) or the strings of HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json (`"createdate"`, `"-createdate"`). */
function checkSort(sorts: unknown): { property: string; descending: boolean } | undefined {
  if (sorts === undefined) return undefined
  if (!Array.isArray(sorts)) throw validation('Invalid input JSON: sorts must be an array')
  if (sorts.length > 1) throw validation('Only one sort is allowed per search')
  const s = sorts[0] as { propertyName?: string; direction?: string } | string | undefined
  if (s === undefined) return undefined
  if (typeof s === 'string') return { property: s.replace(/^-/, ''), descending: s.startsWith('-') }
  if (typeof s.propertyName !== 'string') throw validation('Invalid sort: propertyName is required')
  return { property: s.propertyName, descending: s.direction === 'DESCENDING' }
}

/**
 * A text `query` matches a searchable value that starts with it, whole or from one of its words. The whole
 * value counts: HubSpot finds a contact by its full email address through `query` (HubSpot's own example,
 * `query: "bcooper@biglytics.net"`: HubSpot/hubspot-api-nodejs#231, a maintainer's "workable example"); split
 * into words alone, an address never matched here. The guide says only "a value containing the specified
 * string"; matching inside a word is not modelled (the stricter reading).
 */
function textMatches(c: ContactRecord, query: string): boolean {
  const wanted = query.trim().toLowerCase()
  if (wanted === '') return true
  return SEARCHABLE.some((p) => {
    const value = (propertyValue(c, p) ?? '').toLowerCase()
    return value.startsWith(wanted) || value.split(/[\s@.;,-]+/).some((token) => token.startsWith(wanted))
  })
}

export function registerSearchRoutes(app: FastifyInstance, state: HubspotState): void {
  app.post('/crm/v3/objects/contacts/search', async (request) => {
    requireScope(request, 'crm.objects.contacts.read')
    const body = (request.body ?? {}) as Record<string, unknown>
    const limit = body.limit === undefined ? 10 : Number(body.limit)
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw validation(`limit must be between 1 and ${MAX_LIMIT}`)
    }
    const after = body.after === undefined ? 0 : Number(body.after)
    if (!Number.isInteger(after) || after < 0) throw validation(`Invalid after: ${String(body.after)}`)
    // https://developers.hubspot.com/docs/guides/api/crm/search, "Limitations": "limited to 10,000 total results
    // for any given query. Attempting to page beyond 10,000 will result in a 400 error." The wording of
    // HubSpot's message is not published: ours.
    if (after + limit > RESULT_CAP) {
      throw validation(
        `The search API cannot return more than ${RESULT_CAP} results; after + limit must be at most ${RESULT_CAP}`,
      )
    }
    const groups = checkGroups(body.filterGroups)
    const sort = checkSort(body.sorts)
    const query = typeof body.query === 'string' ? body.query : undefined
    // A longer query is a 400 VALIDATION_ERROR here (ours: the spec states the limit, not the refusal's words).
    if (query !== undefined && [...query].length > MAX_QUERY_CHARS)
      throw validation(`query must be at most ${MAX_QUERY_CHARS} characters`)
    const properties = Array.isArray(body.properties) ? (body.properties as string[]) : undefined
    // The search index lags writes (https://developers.hubspot.com/docs/guides/api/crm/search, "Limitations": new and updated records may take a few moments).
    const visibleBefore = Date.now() - state.searchLagMs
    let rows = state
      .liveContacts()
      .filter((c) => state.searchLagMs === 0 || c.updatedAt <= visibleBefore)
      .filter((c) => groups.length === 0 || groups.some((g) => g.every((f) => matches(c, f))))
      .filter((c) => query === undefined || textMatches(c, query))
    if (sort) {
      // Keys computed once per row: a search over ten thousand contacts sorts them on every page.
      const keys = new Map(rows.map((c) => [c, comparable(sort.property, propertyValue(c, sort.property))]))
      rows = [...rows].sort((a, b) => {
        const x = keys.get(a)
        const y = keys.get(b)
        const order =
          x === y ? Number(a.id) - Number(b.id) : x === undefined ? 1 : y === undefined ? -1 : x < y ? -1 : 1
        return sort.descending && x !== y ? -order : order
      })
    }
    const page = rows.slice(after, after + limit)
    const nextAt = after + limit
    return {
      total: rows.length,
      results: page.map((c) => ({
        id: c.id,
        properties: propertiesJson(c, properties),
        createdAt: new Date(c.createdAt).toISOString(),
        updatedAt: new Date(c.updatedAt).toISOString(),
        archived: false,
      })),
      ...(nextAt < rows.length ? { paging: { next: { after: String(nextAt), link: '' } } } : {}),
    }
  })
}
