import type { DeleteResult } from 'kysely'

/**
 * What Kysely's select, update and delete builders share: narrowing by a column's value. Typed by shape
 * rather than by table, since Kysely does not type-check a where on a table whose name is left generic.
 */
interface Narrowable<Q> {
  where(column: 'id' | 'workspace_id', op: '=', value: string): Q
}

/**
 * Narrows a select, update or delete on a workspace's table (connections, webhooks) to the row with this
 * id in this workspace: another workspace's row is simply not found, changed nor removed.
 */
export function oneOfWorkspace<Q extends Narrowable<Q>>(query: Q, workspaceId: string, id: string): Q {
  return query.where('id', '=', id).where('workspace_id', '=', workspaceId)
}

/** Removes (`db.deleteFrom(table)`) the row with this id in this workspace; whether there was one. */
export async function removeFromWorkspace<
  Q extends Narrowable<Q> & { executeTakeFirst(): Promise<DeleteResult> },
>(remove: Q, workspaceId: string, id: string): Promise<boolean> {
  const result = await oneOfWorkspace(remove, workspaceId, id).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
