import { sql } from 'kysely'
import { type Db, sqliteHandleOf } from '../store/index.js'

/**
 * What a look of the scheduler reads: which time says a webhook is due, and which lease must be free. Only the
 * poll look reads a due time kept on the webhook; the delivery look reads its heads from the deliveries
 * (DeliveryStore.dueWebhooks).
 */
export interface DueLook {
  readonly due: 'next_check_at'
  readonly leaseUntil: 'poll_lease_until'
}

export interface DueWebhook {
  readonly id: string
  readonly workspace_id: string
  /** The webhook's turn in its workspace, from 0 for the workspace's longest due. */
  readonly turn: number
}

interface DueRow {
  readonly id: string
  readonly workspace_id: string
  readonly due: string
}

/**
 * Due webhooks below this count are read whole from the look's due index and put in turns here; above it the
 * look reads only each workspace's first few (dueFirstOfEachWorkspace).
 */
const WHOLE_READ_FACTOR = 2

/**
 * The webhooks whose `due` time has come, not paused, their lease free, each with its turn in its workspace
 * (by due time, then id), the `limit` earliest turns first and, within a turn, the longest due first: every
 * workspace's first webhook comes before any workspace's second, so one workspace with many due webhooks
 * cannot fill the batch.
 *
 * Its cost follows what it answers, not how many webhooks there are: when few are due (the common case: none)
 * it reads just those, through the index on `due`; when more than twice the batch are due (after an outage, all
 * of them) it reads each workspace's first k due webhooks through the index on (workspace_id, due, id), one
 * probe per workspace, with k grown until the batch is decided. Ranking every due webhook instead made each tick
 * as slow as the backlog was long, and on SQLite the look blocks the process's event loop meanwhile.
 */
export async function dueInTurns(db: Db, look: DueLook, now: string, limit: number): Promise<DueWebhook[]> {
  const wholeRead = limit * WHOLE_READ_FACTOR
  const due = await dueWebhooks(db, look, now)
    .orderBy(look.due)
    .limit(wholeRead + 1)
    .execute()
  if (due.length <= wholeRead) return inTurns(due, limit)
  // Too many to rank whole: each workspace's first k. When those give at least `limit` webhooks, every one
  // left out has a later turn than all of them, so the batch is exact; when some workspace had k or more and
  // the batch is not filled, k grows.
  let k = 1
  for (;;) {
    const { rows, workspacesWithMore } = await dueFirstOfEachWorkspace(db, look, now, k)
    if (rows.length >= limit || workspacesWithMore === 0) return inTurns(rows, limit)
    k = Math.max(k * 2, Math.ceil(limit / Math.max(1, workspacesWithMore)))
  }
}

/** The look's filters: due by now, not paused, lease free. */
function dueWebhooks(db: Db, look: DueLook, now: string) {
  return db
    .selectFrom('webhooks')
    .select(['id', 'workspace_id', `${look.due} as due`])
    .where(look.due, '<=', now)
    .where('is_paused', '=', 0)
    .where((eb) => eb.or([eb(look.leaseUntil, 'is', null), eb(look.leaseUntil, '<', now)]))
    .$narrowType<{ due: string }>()
}

/**
 * Every workspace's first `k` due webhooks (by due time, then id), and how many workspaces have k or more (so
 * perhaps more than read): per workspace, one index probe and at most k rows.
 */
async function dueFirstOfEachWorkspace(
  db: Db,
  look: DueLook,
  now: string,
  k: number,
): Promise<{ rows: DueRow[]; workspacesWithMore: number }> {
  if (sqliteHandleOf(db)) return dueFirstOfEachWorkspaceOnSqlite(db, look, now, k)
  // PostgreSQL: a lateral subquery takes each workspace's first k from the index on (workspace_id, due, id).
  const rows = await db
    .selectFrom('workspaces as s')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('webhooks as x')
          .select(['x.id', 'x.workspace_id', `x.${look.due} as due`])
          .whereRef('x.workspace_id', '=', 's.id')
          .where(`x.${look.due}`, '<=', now)
          .where('x.is_paused', '=', 0)
          .where((inner) =>
            inner.or([inner(`x.${look.leaseUntil}`, 'is', null), inner(`x.${look.leaseUntil}`, '<', now)]),
          )
          .orderBy(`x.${look.due}`)
          .orderBy('x.id')
          .limit(k)
          .$narrowType<{ due: string }>()
          .as('w'),
      (join) => join.onTrue(),
    )
    .select(['w.id', 'w.workspace_id', 'w.due'])
    .execute()
  return { rows, workspacesWithMore: workspacesWithAtLeast(rows, k) }
}

/**
 * SQLite has no lateral join: each workspace's k-th due webhook is found first (one probe each, materialized),
 * then its rows up to that one are read from the index; CROSS JOIN keeps SQLite from driving the join from
 * the webhooks instead.
 */
async function dueFirstOfEachWorkspaceOnSqlite(
  db: Db,
  look: DueLook,
  now: string,
  k: number,
): Promise<{ rows: DueRow[]; workspacesWithMore: number }> {
  const bounds = db.selectFrom('workspaces as s').select((eb) => {
    const due = (order: 'asc' | 'desc', offset: number) =>
      eb
        .selectFrom('webhooks as x')
        .whereRef('x.workspace_id', '=', 's.id')
        .where(`x.${look.due}`, '<=', now)
        .where('x.is_paused', '=', 0)
        .where((inner) =>
          inner.or([inner(`x.${look.leaseUntil}`, 'is', null), inner(`x.${look.leaseUntil}`, '<', now)]),
        )
        .orderBy(`x.${look.due}`, order)
        .orderBy('x.id', order)
        .limit(1)
        .offset(offset)
    // The k-th due webhook, or the last when fewer are due (NULL when none is).
    const last = (column: 'due' | 'id') => {
      const pick = (q: ReturnType<typeof due>) =>
        column === 'id' ? q.select('x.id') : q.select(`x.${look.due} as due`).$narrowType<{ due: string }>()
      return eb.fn.coalesce(pick(due('asc', k - 1)), pick(due('desc', 0)))
    }
    return ['s.id as workspace_id', last('due').as('last_due'), last('id').as('last_id')]
  })
  // Materialized: each workspace's bound is probed once, not again for every row it is compared with. The rows
  // up to it are one range of the index on (workspace_id, due, id), however many share a due time.
  const rows = await db
    .with(
      (cte) => cte('b').materialized(),
      () => bounds,
    )
    .selectFrom('b')
    .crossJoin('webhooks as w')
    .whereRef('w.workspace_id', '=', 'b.workspace_id')
    .select(['w.id', 'w.workspace_id', `w.${look.due} as due`])
    .where(
      sql<boolean>`(${sql.ref(`w.${look.due}`)}, ${sql.ref('w.id')}) <= (${sql.ref('b.last_due')}, ${sql.ref('b.last_id')})`,
    )
    .where('w.is_paused', '=', 0)
    .where((eb) => eb.or([eb(`w.${look.leaseUntil}`, 'is', null), eb(`w.${look.leaseUntil}`, '<', now)]))
    .$narrowType<{ due: string }>()
    .execute()
  return { rows, workspacesWithMore: workspacesWithAtLeast(rows, k) }
}

/** How many workspaces have `k` of the rows (so perhaps more due than read). */
function workspacesWithAtLeast(rows: readonly DueRow[], k: number): number {
  const counts = new Map<string, number>()
  for (const r of rows) counts.set(r.workspace_id, (counts.get(r.workspace_id) ?? 0) + 1)
  return [...counts.values()].filter((n) => n >= k).length
}

const byDueThenId = (a: DueRow, b: DueRow) =>
  a.due < b.due ? -1 : a.due > b.due ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/** Turns in each workspace by due time then id; the `limit` earliest turns, each turn longest due first. */
function inTurns(rows: readonly DueRow[], limit: number): DueWebhook[] {
  const turns = new Map<string, number>()
  const ranked = [...rows].sort(byDueThenId).map((r) => {
    const turn = turns.get(r.workspace_id) ?? 0
    turns.set(r.workspace_id, turn + 1)
    return { row: r, turn }
  })
  ranked.sort((a, b) => a.turn - b.turn || byDueThenId(a.row, b.row))
  return ranked.slice(0, limit).map(({ row, turn }) => ({ id: row.id, workspace_id: row.workspace_id, turn }))
}
