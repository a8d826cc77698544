import { createHash } from 'node:crypto'
import type { HandlerContext } from '../types.js'

/**
 * The unified visitor id of PostHog: the person's uuid, for every event whose distinct id belongs to a person
 * now (the events of an anonymous id merged into the person later are the person's too). Persons, events and
 * sessions all report it, so a visitor id read anywhere filters events and sessions to every event of the
 * person and GET /visitor/{id} finds the person.
 *
 * A distinct id without a person (its events sent with `$process_person_profile: false`) is its own visitor
 * id, in events and sessions alike. PostHog gives such events no stable person id: with persons-on-events
 * on they carry the uuid ingestion derives from the distinct id (`personUuidOf`;
 * PostHog/posthog@0fd722817c77:plugin-server/src/worker/ingestion/create-event.ts), with it off HogQL reads
 * `events.person_id` through an INNER JOIN of `person_distinct_ids` and leaves them out of any query that
 * reads it. So the integration never reads `events.person_id` for a visitor id: it resolves the page's
 * distinct ids in `person_distinct_ids` (person-lookup.ts `visitorsOfDistinctIds`), and the distinct id is
 * the one id a filter can find again in both modes (`distinct_id = …`).
 *
 * A person outside the connection's default project carries the project: `<project_id>:<uuid>`.
 */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const NIL_UUID = '00000000-0000-0000-0000-000000000000'

/** The id as a visitor id of `projectId`: bare in the default project, `<project_id>:<id>` elsewhere. */
export function scopedVisitorId(ctx: HandlerContext, projectId: string, id: string): string {
  return projectId === ctx.settings.project_id ? id : `${projectId}:${id}`
}

/** The person or distinct id a visitor id names within `projectId` (its `<project_id>:` prefix removed). */
export function unscopedVisitorId(projectId: string, id: string): string {
  const prefix = `${projectId}:`
  return id.startsWith(prefix) ? id.slice(prefix.length) : id
}

/** The visitor id of an event or session: its person, else (none, or the nil uuid) its distinct id. */
export function rowVisitorId(personId: unknown, distinctId: unknown): string | undefined {
  if (typeof personId === 'string' && personId !== '' && personId !== NIL_UUID) return personId
  return typeof distinctId === 'string' && distinctId !== '' ? distinctId : undefined
}

/** PostHog's `PERSON_UUIDV5_NAMESPACE` (person-uuid.ts, below), the namespace person uuids are derived in. */
const PERSON_NAMESPACE = Buffer.from('932979b465c3442484670b66ec27bc22', 'hex')

/**
 * The uuid PostHog gives the person it creates for a new distinct id: a UUIDv5 of `<team_id>:<distinct_id>`,
 * where the team is the one the capture key belongs to (an environment's id, which is the project's id only
 * for the project's first team: requests.ts `captureTeam`)
 * (PostHog/posthog@0d0221014598:plugin-server/src/worker/ingestion/persons/person-create-service.ts
 * `createPerson` uses `uuidFromDistinctId(teamId, distinctIds[0])`, plugin-server/src/worker/ingestion/
 * person-uuid.ts). Capture answers no id, so this is how a created visitor's id is known at once.
 */
export function personUuidOf(teamId: string, distinctId: string): string {
  const hash = createHash('sha1').update(PERSON_NAMESPACE).update(`${teamId}:${distinctId}`).digest()
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
