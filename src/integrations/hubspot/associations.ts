import { ApiError } from '../../errors.js'
import { tooManyPages } from '../page-bound.js'
import type { HandlerContext } from '../types.js'
import type { HubspotAssociationBatch, HubspotContact } from './types.js'

export type AssociationType = 'companies' | 'deals'

/**
 * The v4 batch read takes at most 1,000 ids per request
 * (https://developers.hubspot.com/changelog/bug-fix-batch-read-limit-for-hubspot-associations-api).
 */
const MAX_BATCH_INPUTS = 1000

/**
 * Rounds of `after` pages read for one set of contacts: a round reads the next page of every contact that
 * has more, so this is the most pages of one type read for one contact (HubSpot documents no page size for
 * the batch read); past it the read fails naming the cap (page-bound.ts).
 */
const MAX_ASSOCIATION_ROUNDS = 100

/** The one batch error that means "none": a contact without associations of the type (answered in a 207). */
const NO_ASSOCIATIONS = 'crm.associations.NO_ASSOCIATIONS_FOUND'

/**
 * Every associated id of each contact, through `POST /crm/v4/associations/contacts/{type}/batch/read`.
 * One contact's associations come in pages: a result with `paging.next.after` is asked again with that
 * `after` beside its id until none is left (CRM/Associations v4 spec, "Retrieve associations":
 * HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:
 * PublicApiSpecs/CRM/Associations/Rollouts/130902/v4/associations.json), so no list is cut short.
 * An error other than "no associations" fails the read rather than answering an empty list.
 */
export async function readAssociatedIds(
  ctx: HandlerContext,
  contactIds: readonly string[],
  type: AssociationType,
): Promise<Map<string, string[]>> {
  const ids = new Map<string, Set<string>>(contactIds.map((id) => [id, new Set<string>()]))
  let pending: { id: string; after?: string }[] = [...ids.keys()].map((id) => ({ id }))
  for (let round = 0; pending.length > 0; round++) {
    if (round === MAX_ASSOCIATION_ROUNDS)
      throw tooManyPages('HubSpot', `pages of ${type} for one contact`, MAX_ASSOCIATION_ROUNDS)
    const following: { id: string; after: string }[] = []
    for (let at = 0; at < pending.length; at += MAX_BATCH_INPUTS) {
      const inputs = pending.slice(at, at + MAX_BATCH_INPUTS)
      // HubSpot answers a batch read with one result per input it has associations for. A contact the batch
      // did not ask about (or one answered twice) is not read: followed, the next round read its pages too,
      // and an api_url of a connection's creator answering 70,000 such results per batch made 2,000 calls
      // and 700 MB of one request (a security review, reproduced).
      const unanswered = new Set(inputs.map((input) => input.id))
      const batch = await ctx.client.json<HubspotAssociationBatch>({
        method: 'POST',
        path: `/crm/v4/associations/contacts/${type}/batch/read`,
        body: { inputs },
        // A batch read only reads.
        idempotent: true,
      })
      for (const e of batch.errors ?? []) {
        if (e.subCategory === NO_ASSOCIATIONS) continue
        const which = e.context?.fromObjectId?.join(', ')
        throw new ApiError(
          502,
          `HubSpot could not read the ${type} of contact${which ? ` ${which}` : 's'}: ${e.message ?? e.category ?? 'unknown error'}`,
        )
      }
      for (const r of batch.results ?? []) {
        const from = String(r.from.id)
        if (!unanswered.delete(from)) {
          throw new ApiError(
            502,
            `HubSpot answered the ${type} of contact ${from.slice(0, 100)}, which the batch did not ask for (or twice); not read`,
          )
        }
        const set = ids.get(from) ?? new Set<string>()
        for (const t of r.to) set.add(String(t.toObjectId))
        ids.set(from, set)
        const after = r.paging?.next?.after
        if (after) following.push({ id: from, after })
      }
    }
    pending = following
  }
  return new Map([...ids].map(([id, set]) => [id, [...set]]))
}

/**
 * Contacts with their `associations.<type>` complete. The v3 contact reads answer at most 100 associations
 * per type and record, with `paging.next` when there are more
 * (https://developers.hubspot.com/changelog/announcing-a-change-to-how-v3-crm-apis-return-association-data;
 * `CollectionResponseAssociatedId.paging` in the contacts spec): `only` "paged" completes just those
 * contacts; "all" reads every contact's associations (search answers none).
 */
export async function completeAssociations(
  ctx: HandlerContext,
  rows: HubspotContact[],
  types: readonly AssociationType[],
  only: 'paged' | 'all',
): Promise<HubspotContact[]> {
  if (rows.length === 0 || types.length === 0) return rows
  const byType = await Promise.all(
    types.map(async (type) => {
      const wanted = rows
        .filter((c) => only === 'all' || c.associations?.[type]?.paging?.next !== undefined)
        .map((c) => String(c.id))
      return { type, ids: wanted.length > 0 ? await readAssociatedIds(ctx, wanted, type) : new Map() }
    }),
  )
  return rows.map((c) => {
    let associations = c.associations
    for (const { type, ids } of byType) {
      const complete = ids.get(String(c.id)) as string[] | undefined
      if (complete === undefined) continue
      associations = { ...associations, [type]: { results: complete.map((id) => ({ id, type })) } }
    }
    return associations === c.associations ? c : { ...c, associations }
  })
}
