import { badRequest, notFound } from '../../errors.js'

/**
 * Matomo's visits and visitors are numbered per site, and every Live API call needs `idSite`, so the
 * unified ids carry the site: `<idSite>:<idVisit>` for sessions, `<idSite>:<visitorId>` for visitors,
 * `<idSite>:<idVisit>:<action index>` for events (actions have no id of their own).
 */
export const visitKey = (idSite: string, idVisit: string) => `${idSite}:${idVisit}`
export const visitorKey = (idSite: string, visitorId: string) => `${idSite}:${visitorId}`
export const actionKey = (idSite: string, idVisit: string, index: number) => `${idSite}:${idVisit}:${index}`

const SITE = /^\d+$/
const VISITOR = /^[0-9a-f]{16}$/i

export function parseVisitKey(id: string): { idSite: string; idVisit: string } {
  const [idSite, idVisit, extra] = id.split(':')
  if (extra !== undefined || !idSite || !idVisit || !SITE.test(idSite) || !/^\d+$/.test(idVisit)) {
    throw notFound(`Matomo session '${id}' not found; session ids look like <idSite>:<idVisit>`)
  }
  return { idSite, idVisit }
}

export function parseActionKey(id: string): { idSite: string; idVisit: string; index: number } {
  const [idSite, idVisit, index, extra] = id.split(':')
  if (
    extra !== undefined ||
    !idSite ||
    !idVisit ||
    !index ||
    !SITE.test(idSite) ||
    !/^\d+$/.test(idVisit) ||
    !/^\d+$/.test(index)
  ) {
    throw notFound(`Matomo event '${id}' not found; event ids look like <idSite>:<idVisit>:<index>`)
  }
  return { idSite, idVisit, index: Number(index) }
}

export function parseVisitorKey(id: string): { idSite: string; visitorId: string } {
  const [idSite, visitorId, extra] = id.split(':')
  if (extra !== undefined || !idSite || !visitorId || !SITE.test(idSite) || !VISITOR.test(visitorId)) {
    throw notFound(`Matomo visitor '${id}' not found; visitor ids look like <idSite>:<16 hex visitorId>`)
  }
  return { idSite, visitorId: visitorId.toLowerCase() }
}

/**
 * The site a list is about: `property_id`, or the site inside a composite session/visitor id filter.
 * Matomo's Live API always needs one.
 */
export function siteOf(filters: Readonly<Record<string, string | Date>>, what: string): string {
  const sites = new Set<string>()
  const property = filters.property_id
  if (typeof property === 'string') {
    if (!SITE.test(property))
      throw badRequest(`property_id: '${property}' is not a Matomo site id (a number)`)
    sites.add(property)
  }
  const session = filters.session_id
  if (typeof session === 'string') sites.add(parseVisitKeyOrBad(session).idSite)
  const visitor = filters.visitor_id
  if (typeof visitor === 'string' && visitor.includes(':')) sites.add(visitor.split(':')[0] ?? '')
  if (sites.size === 0) {
    throw badRequest(`Matomo needs property_id (the site id) to list ${what}`)
  }
  if (sites.size > 1) throw badRequest('property_id, session_id and visitor_id name different Matomo sites')
  return [...sites][0] as string
}

function parseVisitKeyOrBad(id: string): { idSite: string; idVisit: string } {
  try {
    return parseVisitKey(id)
  } catch {
    throw badRequest(`session_id: '${id}' is not a Matomo session id (<idSite>:<idVisit>)`)
  }
}

/** The bare 16-hex visitorId of a `visitor_id` filter given as `<idSite>:<visitorId>` or bare. */
export function visitorIdOf(value: string): string {
  const bare = value.includes(':') ? value.split(':')[1] : value
  if (!bare || !VISITOR.test(bare)) {
    throw badRequest(`visitor_id: '${value}' is not a Matomo visitor id (<idSite>:<16 hex characters>)`)
  }
  return bare.toLowerCase()
}

export function visitIdOf(value: string): string {
  return parseVisitKeyOrBad(value).idVisit
}
