import { createHash } from 'node:crypto'

export interface PersonRecord {
  readonly id: number
  readonly uuid: string
  /** In the order they were linked; the API sorts identified ids first. */
  readonly distinctIds: string[]
  properties: Record<string, unknown>
  /** A merge keeps the older of the two persons' creation times. */
  createdAt: number
  lastSeenAt?: number
  isIdentified: boolean
}

const PERSON_UUIDV5_NAMESPACE = Buffer.from('932979b465c3442484670b66ec27bc22', 'hex')

/**
 * The uuid of the person PostHog creates for a distinct id: a UUIDv5 of `<team_id>:<distinct_id>` in a fixed
 * namespace, from the first distinct id the person is created with.
 * PostHog/posthog@master:plugin-server/src/worker/ingestion/person-uuid.ts (`uuidFromDistinctId`,
 * `PERSON_UUIDV5_NAMESPACE`), PostHog/posthog@0d0221014598:plugin-server/src/worker/ingestion/persons/
 * person-create-service.ts (`createPerson`).
 */
export function personUuidFor(teamId: number, distinctId: string): string {
  const hash = createHash('sha1').update(PERSON_UUIDV5_NAMESPACE).update(`${teamId}:${distinctId}`).digest()
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The person property operations capture understands (`$set`, `$set_once`, `$unset`). */
export interface PersonUpdate {
  readonly $set?: Readonly<Record<string, unknown>>
  readonly $set_once?: Readonly<Record<string, unknown>>
  readonly $unset?: readonly string[]
}

/**
 * PostHog's `is_anonymous_id`: five lowercase alphanumeric groups joined by dashes (a lowercase UUID, or
 * posthog-js's older anonymous ids). PostHog/posthog@master:posthog/utils.py (`ANONYMOUS_REGEX`).
 */
const ANONYMOUS_REGEX = /^([a-z0-9]+-){4}([a-z0-9]+)$/

export function isAnonymousDistinctId(distinctId: string): boolean {
  return ANONYMOUS_REGEX.test(distinctId)
}

/**
 * The detail view's order: identified ids first, otherwise in link order (a stable sort on
 * `is_anonymous_id`). PostHog/posthog@master:posthog/api/person.py (`PersonSerializer.to_representation`).
 * Lists do not sort (see `serializePersonListRow`).
 */
export function sortedDistinctIds(person: PersonRecord): string[] {
  return [...person.distinctIds].sort(
    (a, b) => Number(isAnonymousDistinctId(a)) - Number(isAnonymousDistinctId(b)),
  )
}

export function applyPersonUpdate(person: PersonRecord, update: PersonUpdate): void {
  for (const [key, value] of Object.entries(update.$set_once ?? {})) {
    if (!(key in person.properties)) person.properties[key] = value
  }
  Object.assign(person.properties, update.$set ?? {})
  for (const key of update.$unset ?? []) delete person.properties[key]
}

/** The persons of one project, findable by numeric id, uuid and any of their distinct ids. */
export class PersonStore {
  readonly list: PersonRecord[] = []
  private readonly byDistinctId = new Map<string, PersonRecord>()
  private readonly byUuid = new Map<string, PersonRecord>()
  private readonly byId = new Map<number, PersonRecord>()

  add(person: PersonRecord): PersonRecord {
    this.list.push(person)
    this.byUuid.set(person.uuid, person)
    this.byId.set(person.id, person)
    for (const d of person.distinctIds) this.byDistinctId.set(d, person)
    return person
  }

  linkDistinctId(person: PersonRecord, distinctId: string): void {
    if (this.byDistinctId.has(distinctId)) return
    person.distinctIds.push(distinctId)
    this.byDistinctId.set(distinctId, person)
  }

  /**
   * Merges `source` into `target` as PostHog's `mergePeople` does: `target` keeps its uuid and takes the
   * source's distinct ids (after its own), the older `created_at`, the properties of both (the target's win
   * a conflict) and `is_identified`; the source person is deleted. Events of the moved distinct ids then
   * resolve to `target` (see the `events.person_id` column in hogql/posthog-tables.ts).
   * PostHog/posthog@1c15bc795bc8:plugin-server/src/worker/ingestion/persons/person-merge-service.ts
   * (`mergePeople`, `handleMergeTransaction`: `moveDistinctIds`, `deletePerson`, `olderCreatedAt`).
   */
  merge(target: PersonRecord, source: PersonRecord): void {
    this.remove(source)
    target.createdAt = Math.min(target.createdAt, source.createdAt)
    target.properties = { ...source.properties, ...target.properties }
    target.isIdentified = true
    for (const d of source.distinctIds) this.linkDistinctId(target, d)
  }

  /** Every (distinct id, person) pair: the `person_distinct_ids` table. */
  *distinctIdPairs(): Generator<readonly [string, PersonRecord]> {
    for (const person of this.list) for (const d of person.distinctIds) yield [d, person]
  }

  remove(person: PersonRecord): void {
    const index = this.list.indexOf(person)
    if (index >= 0) this.list.splice(index, 1)
    this.byUuid.delete(person.uuid)
    this.byId.delete(person.id)
    for (const d of person.distinctIds) this.byDistinctId.delete(d)
  }

  withDistinctId(distinctId: string): PersonRecord | undefined {
    return this.byDistinctId.get(distinctId)
  }

  /** Looks a person up the way the persons API does: by numeric id or by uuid. */
  withIdOrUuid(key: string): PersonRecord | undefined {
    if (/^\d+$/.test(key)) return this.byId.get(Number(key))
    return this.byUuid.get(key.toLowerCase())
  }
}
