import { randomInt } from 'node:crypto'
import { isUuid, SeededRandom, uuidV7 } from '../kit/index.js'
import { parseDateTime } from './hogql/values.js'
import { runDestinations } from './routes/hog-functions.js'
import type { PosthogState, ProjectData } from './state.js'
import { applyPersonUpdate, type PersonRecord, type PersonUpdate, personUuidFor } from './store/persons.js'
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
 * Distinct ids PostHog refuses to merge on, as a bug's tell: bare ones compared case-insensitively, others
 * exactly, each also in single and double quotes.
 * PostHog/posthog@1c15bc795bc8:plugin-server/src/worker/ingestion/persons/person-merge-service.ts
 * (`BARE_CASE_INSENSITIVE_ILLEGAL_IDS`, `BARE_CASE_SENSITIVE_ILLEGAL_IDS`, `isDistinctIdIllegal`).
 */
const ILLEGAL_ANY_CASE = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
]
const ILLEGAL_EXACT = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']
const quoted = (ids: readonly string[]) => [...ids, ...ids.map((i) => `'${i}'`), ...ids.map((i) => `"${i}"`)]
const ILLEGAL_ANY_CASE_IDS = new Set(quoted(ILLEGAL_ANY_CASE))
const ILLEGAL_EXACT_IDS = new Set(quoted(ILLEGAL_EXACT))

function isDistinctIdIllegal(id: string): boolean {
  return id.trim() === '' || ILLEGAL_ANY_CASE_IDS.has(id.toLowerCase()) || ILLEGAL_EXACT_IDS.has(id)
}

/**
 * A person created by an event: its uuid derives from its first distinct id, it is created at the event's
 * time and notes the event (`$creator_event_uuid`)
 * (PostHog/posthog@0d0221014598:plugin-server/src/worker/ingestion/persons/person-create-service.ts).
 */
function newPerson(
  state: PosthogState,
  data: ProjectData,
  distinctIds: string[],
  ts: number,
  eventUuid: string,
): PersonRecord {
  return data.persons.add({
    id: state.allocatePersonId(),
    uuid: personUuidFor(data.project.id, distinctIds[0] as string),
    distinctIds,
    properties: { $creator_event_uuid: eventUuid },
    createdAt: ts,
    isIdentified: false,
  })
}

/**
 * `$identify` (with `$anon_distinct_id`), `$create_alias` and `$merge_dangerously` (with `alias`) tie the
 * other distinct id to the event's: when neither has a person one is created with both, when one has it
 * takes the other id, when both have different persons the other is merged into the event's person unless
 * it is already identified (only `$merge_dangerously` may merge those). Any of these marks the person
 * identified. PostHog/posthog@1c15bc795bc8:plugin-server/src/worker/ingestion/persons/person-merge-service.ts
 * (`handleIdentifyOrAlias`, `merge`, `mergeDistinctIds`, `mergePeople`, `isMergeAllowed`).
 */
function identifyOrAlias(
  state: PosthogState,
  data: ProjectData,
  event: string,
  distinctId: string,
  properties: Record<string, unknown>,
  ts: number,
  eventUuid: string,
): void {
  const other =
    event === '$identify'
      ? asString(properties.$anon_distinct_id)
      : event === '$create_alias' || event === '$merge_dangerously'
        ? asString(properties.alias)
        : undefined
  if (other === undefined || other === distinctId) return
  if (isDistinctIdIllegal(distinctId) || isDistinctIdIllegal(other)) return
  const persons = data.persons
  const target = persons.withDistinctId(distinctId)
  const source = persons.withDistinctId(other)
  if (!target && !source) {
    newPerson(state, data, [distinctId, other], ts, eventUuid).isIdentified = true
  } else if (target && !source) {
    persons.linkDistinctId(target, other)
    target.isIdentified = true
  } else if (source && !target) {
    persons.linkDistinctId(source, distinctId)
    source.isIdentified = true
  } else if (source && target && source !== target) {
    if (source.isIdentified && event !== '$merge_dangerously') return // `cannot_merge_already_identified`
    persons.merge(target, source)
  }
}

/**
 * Person processing as PostHog's ingestion does it: identify/alias first, then the event's person (created
 * for a new distinct id) takes `$set`/`$set_once`/`$unset`
 * (https://posthog.com/docs/product-analytics/identify, https://posthog.com/docs/product-analytics/person-properties).
 * Answers the person id stamped on the event. `$process_person_profile: false` skips person processing:
 * the event gets the person its distinct id has, else a made-up one whose uuid derives from the distinct id
 * (no person is created) (PostHog/posthog@6103b7d7c347:plugin-server/src/worker/ingestion/event-pipeline/
 * processPersonlessStep.ts `createFakePerson`).
 */
function processPerson(
  state: PosthogState,
  data: ProjectData,
  event: { readonly name: string; readonly uuid: string },
  distinctId: string,
  properties: Record<string, unknown>,
  input: Record<string, unknown>,
  ts: number,
): string {
  if (properties.$process_person_profile === false) {
    return data.persons.withDistinctId(distinctId)?.uuid ?? personUuidFor(data.project.id, distinctId)
  }
  identifyOrAlias(state, data, event.name, distinctId, properties, ts, event.uuid)
  const person =
    data.persons.withDistinctId(distinctId) ?? newPerson(state, data, [distinctId], ts, event.uuid)
  applyPersonUpdate(person, personUpdateOf(properties, input))
  person.lastSeenAt = Math.max(person.lastSeenAt ?? ts, ts)
  return person.uuid
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

  const personUuid = processPerson(state, data, { name: event, uuid }, distinctId, properties, input, ts)
  const sessionId = asString(properties.$session_id)
  if (sessionId !== undefined) {
    const session =
      data.sessions.get(sessionId) ?? data.sessions.add(new SessionRecord(sessionId, distinctId, personUuid))
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
    personUuid,
    elementsChain: asString(properties.$elements_chain) ?? '',
  }
  data.events.add(captured)
  runDestinations(state, data, captured)
  return true
}
