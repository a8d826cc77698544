import { randomInt } from 'node:crypto'
import { isUuid, SeededRandom, uuidV7 } from '../kit/index.js'
import { parseDateTime } from './hogql/values.js'
import { runDestinations } from './routes/hog-functions.js'
import type { PosthogState, ProjectData } from './state.js'
import { applyPersonUpdate, type PersonRecord, type PersonUpdate } from './store/persons.js'
import { type SessionFacts, SessionRecord } from './store/sessions.js'

const asString = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined
const asObject = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined

function freshUuid(ms: number): string {
  return uuidV7(ms, new SeededRandom(randomInt(0, 2 ** 32 - 1)))
}

function personUpdateOf(properties: Record<string, unknown>, input: Record<string, unknown>): PersonUpdate {
  const unset = properties.$unset
  return {
    $set: { ...asObject(input.$set), ...asObject(properties.$set) },
    $set_once: { ...asObject(input.$set_once), ...asObject(properties.$set_once) },
    $unset: Array.isArray(unset)
      ? unset.filter((k): k is string => typeof k === 'string')
      : Object.keys(asObject(unset) ?? {}),
  }
}

/**
 * Person processing as PostHog's ingestion does it: `$identify` links the anonymous id (`$anon_distinct_id`)
 * to the identified one, `$set`/`$set_once`/`$unset` update properties
 * (https://posthog.com/docs/product-analytics/identify, https://posthog.com/docs/product-analytics/person-properties).
 */
function processPerson(
  state: PosthogState,
  data: ProjectData,
  event: string,
  distinctId: string,
  properties: Record<string, unknown>,
  input: Record<string, unknown>,
  ts: number,
): PersonRecord | undefined {
  if (properties.$process_person_profile === false) return undefined
  const persons = data.persons
  if (event === '$identify' || event === '$create_alias') {
    const other = asString(event === '$identify' ? properties.$anon_distinct_id : properties.alias)
    const target = persons.withDistinctId(distinctId)
    const source = other === undefined ? undefined : persons.withDistinctId(other)
    if (other !== undefined && source && !target) persons.linkDistinctId(source, distinctId)
    if (other !== undefined && !source && target) persons.linkDistinctId(target, other)
  }
  let person = persons.withDistinctId(distinctId)
  if (!person) {
    person = persons.add({
      id: state.allocatePersonId(),
      uuid: freshUuid(ts),
      distinctIds: [distinctId],
      properties: {},
      createdAt: ts,
      isIdentified: false,
    })
  }
  if (event === '$identify') person.isIdentified = true
  applyPersonUpdate(person, personUpdateOf(properties, input))
  person.lastSeenAt = Math.max(person.lastSeenAt ?? ts, ts)
  return person
}

function urlParts(url: string | undefined): { pathname?: string; host?: string } {
  if (url === undefined) return {}
  try {
    const parsed = new URL(url)
    return { pathname: parsed.pathname, host: parsed.host }
  } catch {
    return {}
  }
}

function sessionFacts(ts: number, event: string, p: Record<string, unknown>): SessionFacts {
  const currentUrl = asString(p.$current_url)
  const parts = urlParts(currentUrl)
  const location =
    currentUrl === undefined
      ? undefined
      : {
          currentUrl,
          pathname: asString(p.$pathname) ?? parts.pathname,
          host: asString(p.$host) ?? parts.host,
        }
  const campaign = {
    referringDomain: asString(p.$referring_domain),
    utmSource: asString(p.utm_source),
    utmMedium: asString(p.utm_medium),
    utmCampaign: asString(p.utm_campaign),
    utmTerm: asString(p.utm_term),
    utmContent: asString(p.utm_content),
    gclid: asString(p.gclid),
    fbclid: asString(p.fbclid),
  }
  return location ? { ts, event, location, campaign } : { ts, event, campaign }
}

/**
 * Ingests one captured event into a project. Answers false when PostHog would silently drop it (no event
 * name or no distinct id, or a uuid already stored).
 */
export function ingestEvent(
  state: PosthogState,
  data: ProjectData,
  input: Record<string, unknown>,
  receivedAt: number,
): boolean {
  const properties = { ...asObject(input.properties) }
  const event = asString(input.event)
  const distinctId = asString(input.distinct_id) ?? asString(properties.distinct_id)
  if (event === undefined || distinctId === undefined) return false
  const offset = typeof input.offset === 'number' ? input.offset : undefined
  const given = typeof input.timestamp === 'string' ? parseDateTime(input.timestamp) : undefined
  const ts = offset !== undefined ? receivedAt - offset : (given ?? receivedAt)
  const uuid = typeof input.uuid === 'string' && isUuid(input.uuid) ? input.uuid.toLowerCase() : freshUuid(ts)
  if (data.events.hasUuid(uuid)) return false

  const person = processPerson(state, data, event, distinctId, properties, input, ts)
  const sessionId = asString(properties.$session_id)
  if (sessionId !== undefined) {
    const session =
      data.sessions.get(sessionId) ??
      data.sessions.add(new SessionRecord(sessionId, distinctId, person?.uuid))
    session.apply({ ...sessionFacts(ts, event, properties), distinctId })
    data.sessions.changed()
  }
  const captured = {
    uuid,
    event,
    distinctId,
    timestamp: ts,
    createdAt: receivedAt,
    properties,
    ...(person ? { personUuid: person.uuid } : {}),
    elementsChain: asString(properties.$elements_chain) ?? '',
  }
  data.events.add(captured)
  runDestinations(state, data, captured)
  return true
}
