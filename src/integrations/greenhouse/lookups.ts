import { sharedText } from '../shared-text.js'
import type { HandlerContext } from '../types.js'
import { type Query, readAll } from './pages.js'
import type { GreenhouseApplication } from './types.js'

/**
 * Ids one `ids` filter takes: "ids (max 50)" on every v3 list (the v3 reference's universal read
 * conventions; airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse,
 * unit tests: "*_ids capped at 50").
 */
const IDS_PER_CALL = 50

/** Display names by id, for the applications of one list page. */
export interface ApplicationNames {
  readonly sources: ReadonlyMap<number, string>
  readonly rejectionReasons: ReadonlyMap<number, string>
}

export const NO_NAMES: ApplicationNames = { sources: new Map(), rejectionReasons: new Map() }

/** The `name` of each listed id of a v3 dictionary (`/sources`, `/rejection_reasons`), 50 ids a call. */
async function namesOf(
  ctx: HandlerContext,
  path: string,
  ids: readonly number[],
  extra: Query = {},
): Promise<Map<number, string>> {
  const names = new Map<number, string>()
  for (let i = 0; i < ids.length; i += IDS_PER_CALL) {
    const batch = ids.slice(i, i + IDS_PER_CALL)
    // One page answers a batch (50 ids, pages of 500); readAll still fails rather than cut anything short.
    const rows = await readAll<{ id: number; name?: string | null }>(
      ctx,
      path,
      { ...extra, ids: batch.join(',') },
      1,
    )
    for (const row of rows) {
      if (typeof row.name === 'string')
        names.set(row.id, sharedText(row.name, 'Greenhouse', `name at ${path}`))
    }
  }
  return names
}

const distinct = (values: readonly (number | null | undefined)[]) =>
  [...new Set(values.filter((v): v is number => typeof v === 'number'))].sort((a, b) => a - b)

const wanted = (ctx: HandlerContext, field: string) => !ctx.fields.listed || ctx.fields.listed.has(field)

/**
 * `source` and `rejected_reason` are names; a v3 application has only `source_id` and `rejection_reason_id`
 * (airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml, schemas.applications: `source_id` "Id of the source the application is
 * attributed to", `rejection_reason_id` "References a `/v3/rejection_reasons` row").
 * The names come from `GET /v3/sources` and `GET /v3/rejection_reasons`, asked once for the distinct ids of
 * a whole page of applications (never per record), and only when the caller wants those fields and the page
 * has such ids. `include_defaults=true`: without it Greenhouse lists only the organization's own rejection
 * reasons, not its built-in ones ("Lacking skill(s)/qualification(s)"...), and an application rejected for a
 * built-in reason would silently get no `rejected_reason`.
 */
export async function namesFor(
  ctx: HandlerContext,
  apps: readonly GreenhouseApplication[],
): Promise<ApplicationNames> {
  const sourceIds = wanted(ctx, 'source') ? distinct(apps.map((a) => a.source_id)) : []
  const reasonIds = wanted(ctx, 'rejected_reason') ? distinct(apps.map((a) => a.rejection_reason_id)) : []
  return {
    sources: sourceIds.length ? await namesOf(ctx, '/sources', sourceIds) : new Map(),
    rejectionReasons: reasonIds.length
      ? await namesOf(ctx, '/rejection_reasons', reasonIds, { include_defaults: 'true' })
      : new Map(),
  }
}
