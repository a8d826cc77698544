import { ProviderError } from '../../errors.js'
import type { HandlerContext } from '../types.js'
import { personsOfDistinctIdsQuery, type VisitorFilter } from './hogql.js'
import { restQuery, runHogQL } from './requests.js'
import type { PosthogPage, PosthogPerson } from './types.js'
import { rowVisitorId, scopedVisitorId, UUID, unscopedVisitorId } from './visitor-ids.js'

export const personsPath = (projectId: string) => `/api/projects/${projectId}/persons/`

/** The person that has this distinct id, or undefined (`GET …/persons/?distinct_id=`). */
export async function personWithDistinctId(
  ctx: HandlerContext,
  projectId: string,
  id: string,
): Promise<PosthogPerson | undefined> {
  const page = await ctx.client.json<PosthogPage<PosthogPerson>>({
    path: personsPath(projectId),
    query: restQuery(ctx, { distinct_id: id }),
  })
  return page.results[0]
}

async function byPersonId(ctx: HandlerContext, projectId: string, id: string) {
  try {
    return await ctx.client.json<PosthogPerson>({
      path: `${personsPath(projectId)}${id}/`,
      query: restQuery(ctx),
    })
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) return undefined
    throw err
  }
}

/**
 * The person a visitor id names in `projectId`, or undefined when none does. A visitor id is the person's
 * uuid (visitor-ids.ts); a distinct id of the person (the visitor ids of earlier versions) and its numeric
 * id are accepted too. A uuid is tried as the person's first, then as a distinct id (anonymous distinct
 * ids are uuids too); anything else as a distinct id, then (digits) as the numeric id.
 */
export async function lookupPerson(
  ctx: HandlerContext,
  projectId: string,
  visitorId: string,
): Promise<PosthogPerson | undefined> {
  const id = unscopedVisitorId(projectId, visitorId)
  if (UUID.test(id)) return (await byPersonId(ctx, projectId, id)) ?? personWithDistinctId(ctx, projectId, id)
  const found = await personWithDistinctId(ctx, projectId, id)
  if (found || !/^\d+$/.test(id)) return found
  return byPersonId(ctx, projectId, id)
}

/** The filter for a `visitor_id` filter value: its person, else the id itself (see `VisitorFilter`). */
export async function visitorFilterOf(
  ctx: HandlerContext,
  projectId: string,
  visitorId: string,
): Promise<VisitorFilter> {
  const person = await lookupPerson(ctx, projectId, visitorId)
  return person
    ? { personId: person.uuid, distinctIds: person.distinct_ids ?? [] }
    : { unknownId: unscopedVisitorId(projectId, visitorId) }
}

/**
 * The person each distinct id belongs to now, in one HogQL query (sessions name a distinct id, not a person;
 * HogQL's `sessions` has no person column before v3, and v3's `person_id` is the id stamped at ingestion, an
 * `argMax` not resolved after a merge: PostHog/posthog@04bbdcc0f517:posthog/hogql/database/schema/sessions_v3.py).
 * Distinct ids without a person are left out.
 */
export async function personsOfDistinctIds(
  ctx: HandlerContext,
  projectId: string,
  distinctIds: readonly string[],
): Promise<Map<string, string>> {
  const persons = new Map<string, string>()
  const unique = [...new Set(distinctIds)]
  if (unique.length === 0) return persons
  const res = await runHogQL(
    ctx,
    projectId,
    personsOfDistinctIdsQuery(unique),
    'unigate session persons',
    unique.length,
  )
  for (const [distinctId, personId] of res.results) persons.set(String(distinctId), String(personId))
  return persons
}

/**
 * The visitor id of each of a page's distinct ids (visitor-ids.ts): its person's uuid, else the distinct id
 * itself, scoped to the project. Events and sessions both use it, so one visitor has one id in both, whatever
 * the project's persons-on-events mode. Costs one `person_distinct_ids` query per page, skipped when
 * `visitor_id` is not read or the page was filtered to one visitor (every row is that visitor's).
 */
export async function visitorsOfDistinctIds(
  ctx: HandlerContext,
  projectId: string,
  distinctIds: readonly unknown[],
  visitor: VisitorFilter | undefined,
): Promise<(distinctId: unknown) => string | undefined> {
  if (ctx.fields.listed && !ctx.fields.listed.has('visitor_id')) return () => undefined
  const scoped = (id: string | undefined) =>
    id === undefined ? undefined : scopedVisitorId(ctx, projectId, id)
  if (visitor && 'personId' in visitor) return () => scoped(visitor.personId)
  // Filtered to a distinct id no person has: every row is that distinct id's.
  if (visitor) return () => scoped(visitor.unknownId)
  const ids = distinctIds.filter((d): d is string => typeof d === 'string' && d !== '')
  const persons = await personsOfDistinctIds(ctx, projectId, ids)
  return (distinctId) =>
    scoped(rowVisitorId(typeof distinctId === 'string' ? persons.get(distinctId) : undefined, distinctId))
}
