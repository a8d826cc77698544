import { createHash } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { CURSOR_TTL_MS, CursorBank, CursorMemory, MAX_CURSOR_CHARS } from '../src/integrations/cursors.js'
import { type Db, migrateToLatest, openDatabase } from '../src/store/index.js'
import { ListCursorStore } from '../src/store/list-cursors.js'
import { dropSchema, insertWorkspaceRow, storeKinds, uniqueSchema } from './support/stores.js'

const T0 = Date.parse('2026-03-01T10:00:00.000Z')

/** Cursors of a process: its own memory, the shared store, and a clock the test moves. */
function processOn(store: ListCursorStore, clock: { now: number }) {
  const now = () => clock.now
  return new CursorBank(new CursorMemory(10_000, CURSOR_TTL_MS, now), store, CURSOR_TTL_MS, now)
}

describe.each(storeKinds())('list cursors in the %s store', (kind) => {
  let db: Db
  let schema: string | undefined
  let store: ListCursorStore
  const clock = { now: T0 }

  const connection = async (id: string) =>
    db
      .insertInto('connections')
      .values({
        id,
        workspace_id: 'ws_1',
        integration_type: 'hubspot',
        categories: '["crm"]',
        permissions: '[]',
        external_xref: null,
        environment: 'Production',
        auth_sealed: 'sealed',
        settings: '{}',
        is_paused: 0,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
        last_healthy_at: null,
        last_unhealthy_at: null,
        last_unhealthy_code: null,
      })
      .execute()

  beforeEach(async () => {
    clock.now = T0
    schema = kind === 'postgres' ? uniqueSchema() : undefined
    db = openDatabase({
      ...(kind === 'postgres' ? { databaseUrl: process.env.TEST_DATABASE_URL, pgSchema: schema } : {}),
      sqliteFile: join(mkdtempSync(join(tmpdir(), 'unigate-cursors-')), 'unigate.db'),
    })
    await migrateToLatest(db, schema)
    await insertWorkspaceRow(db, 'ws_1', 'cursors')
    await connection('c1')
    await connection('c2')
    store = new ListCursorStore(db)
  })

  afterEach(async () => {
    await db.destroy()
    if (schema) await dropSchema(schema)
  })

  it('gives one process the cursors another stored, and the nearest below an offset', async () => {
    const a = processOn(store, clock).forConnection('c1')
    a.set('c1:q=secret text', 100, 'after-100')
    a.set('c1:q=secret text', 200, 'after-200')
    await a.flush()
    const b = processOn(store, clock).forConnection('c1')
    expect(await b.get('c1:q=secret text', 200)).toBe('after-200')
    expect(await b.walkStart('c1:q=secret text', 250)).toEqual({ offset: 200, cursor: 'after-200' })
    expect(await b.nearest('c1:q=secret text', 150)).toEqual({ offset: 100, cursor: 'after-100' })
    expect(await b.nearest('c1:q=other', 250)).toBeUndefined()
    // The query text is not in the store: only its hash, taken under the connection's id.
    const rows = await db.selectFrom('list_cursors').selectAll().orderBy('position').execute()
    const hash = createHash('sha256').update('c1\u0000\u0000c1:q=secret text').digest('hex')
    expect(rows.map((r) => [r.scope_hash, Number(r.position), r.cursor, r.connection_id])).toEqual([
      [hash, 100, 'after-100', 'c1'],
      [hash, 200, 'after-200', 'c1'],
    ])
  })

  it("keeps one connection's cursors from another, even where a connector's scope names no connection", async () => {
    const bank = processOn(store, clock)
    const mine = bank.forConnection('c1')
    mine.set('q=same text', 100, 'c1-after-100')
    await mine.flush()
    // Another connection (possibly of another workspace) asking the same query, on this process and on another.
    for (const other of [bank.forConnection('c2'), processOn(store, clock).forConnection('c2')]) {
      expect(await other.get('q=same text', 100)).toBeUndefined()
      expect(await other.get('q=same text', 100, { latest: true })).toBeUndefined()
      expect(await other.walkStart('q=same text', 150)).toEqual({ offset: 0, cursor: undefined })
    }
    // Nor can it replace the first connection's cursor.
    const theirs = bank.forConnection('c2')
    theirs.set('q=same text', 100, 'c2-after-100')
    await theirs.flush()
    expect(await processOn(store, clock).forConnection('c1').get('q=same text', 100)).toBe('c1-after-100')
    expect(await bank.forConnection('c1').get('q=same text', 100)).toBe('c1-after-100')
  })

  it('keeps the cursors read from one provider address from the same connection at another', async () => {
    const bank = processOn(store, clock)
    const before = bank.forConnection('c1', 'https://old.example.com/v3')
    before.set('q', 500, 'https://old.example.com/v3/applications?cursor=x')
    await before.flush()
    // The connection now points elsewhere: neither this process nor another finds the old address's cursor.
    for (const moved of [
      bank.forConnection('c1', 'https://new.example.com/v3'),
      processOn(store, clock).forConnection('c1', 'https://new.example.com/v3'),
    ]) {
      expect(await moved.get('q', 500)).toBeUndefined()
      expect(await moved.walkStart('q', 600)).toEqual({ offset: 0, cursor: undefined })
    }
    expect(
      await processOn(store, clock).forConnection('c1', 'https://old.example.com/v3').get('q', 500),
    ).toBe('https://old.example.com/v3/applications?cursor=x')
  })

  it('keeps no cursor longer than MAX_CURSOR_CHARS, in memory or in the store', async () => {
    // A provider address is the connection's to choose: its cursors are whatever it answers (up to the
    // provider body cap, 32 MiB), and a walk remembers one per page.
    const bank = processOn(store, clock)
    const cursors = bank.forConnection('c1')
    const huge = 'x'.repeat(MAX_CURSOR_CHARS + 1)
    cursors.set('c1:q', 10, huge)
    cursors.set('c1:q', 20, 'x'.repeat(MAX_CURSOR_CHARS))
    await cursors.flush()
    expect(await bank.forConnection('c1').get('c1:q', 10)).toBeUndefined()
    expect(await processOn(store, clock).forConnection('c1').get('c1:q', 10)).toBeUndefined()
    expect((await bank.forConnection('c1').get('c1:q', 20))?.length).toBe(MAX_CURSOR_CHARS)
    const rows = await db.selectFrom('list_cursors').select('position').execute()
    expect(rows.map((r) => Number(r.position))).toEqual([20])
  })

  it('answers a hit in memory, and offset 0, without reading the store', async () => {
    const bank = processOn(store, clock)
    const first = bank.forConnection('c1')
    first.set('c1:q', 30, 'after-30')
    await first.flush()
    const find = vi.spyOn(store, 'find')
    const floor = vi.spyOn(store, 'floor')
    const next = bank.forConnection('c1')
    expect(await next.walkStart('c1:q', 30)).toEqual({ offset: 30, cursor: 'after-30' })
    expect(await next.get('c1:q', 30)).toBe('after-30')
    expect(await next.walkStart('c1:q', 0)).toEqual({ offset: 0, cursor: undefined })
    expect(find).not.toHaveBeenCalled()
    expect(floor).not.toHaveBeenCalled()
    // The latest is asked of the store even so (Matomo's listing moment).
    expect(await next.get('c1:q', 30, { latest: true })).toBe('after-30')
    expect(find).toHaveBeenCalledTimes(1)
  })

  it('prefers a nearer cursor another process stored over a farther one in memory', async () => {
    const a = processOn(store, clock)
    const mine = a.forConnection('c1')
    mine.set('c1:q', 30, 'a-30')
    await mine.flush()
    const other = processOn(store, clock).forConnection('c1')
    other.set('c1:q', 60, 'b-60')
    await other.flush()
    expect(await a.forConnection('c1').walkStart('c1:q', 90)).toEqual({ offset: 60, cursor: 'b-60' })
  })

  it('replaces a cursor written again at the same place, for every process', async () => {
    const a = processOn(store, clock)
    const first = a.forConnection('c1')
    first.set('c1:q', 3, '100:3:0')
    await first.flush()
    const b = processOn(store, clock).forConnection('c1')
    b.set('c1:q', 3, '200:3:0')
    await b.flush()
    // In memory A still has the first; the latest is the one B wrote.
    expect(await a.forConnection('c1').get('c1:q', 3)).toBe('100:3:0')
    expect(await a.forConnection('c1').get('c1:q', 3, { latest: true })).toBe('200:3:0')
    expect(await a.forConnection('c1').walkStart('c1:q', 5, { latest: true })).toEqual({
      offset: 3,
      cursor: '200:3:0',
    })
  })

  it('writes a cursor set again unchanged only after a sixth of its hour, and any other cursor at once', async () => {
    const a = processOn(store, clock)
    const writes = vi.spyOn(store, 'write')
    const read = async (cursor: string) => {
      const request = a.forConnection('c1')
      request.set('c1:q', 100, cursor)
      await request.flush()
    }
    await read('after-100')
    await read('after-100')
    clock.now = T0 + CURSOR_TTL_MS / 6 - 1
    await read('after-100')
    expect(writes).toHaveBeenCalledTimes(1)
    // Every process still finds it, for the rest of its hour.
    expect(await processOn(store, clock).forConnection('c1').get('c1:q', 100)).toBe('after-100')
    clock.now = T0 + CURSOR_TTL_MS / 6
    await read('after-100')
    expect(writes).toHaveBeenCalledTimes(2)
    await read('after-100 changed')
    expect(writes).toHaveBeenCalledTimes(3)
    clock.now = T0 + CURSOR_TTL_MS + 1
    // Written again at a sixth of the hour: it outlives the first write's hour in the store.
    expect(await processOn(store, clock).forConnection('c1').get('c1:q', 100)).toBe('after-100 changed')
  })

  it('writes again a cursor whose store write failed', async () => {
    const a = processOn(store, clock)
    const writes = vi.spyOn(store, 'write').mockRejectedValueOnce(new Error('database is locked'))
    const first = a.forConnection('c1')
    first.set('c1:q', 100, 'after-100')
    await expect(first.flush()).rejects.toThrow('database is locked')
    const again = a.forConnection('c1')
    again.set('c1:q', 100, 'after-100')
    await again.flush()
    expect(writes).toHaveBeenCalledTimes(2)
    expect(await processOn(store, clock).forConnection('c1').get('c1:q', 100)).toBe('after-100')
  })

  it('forgets cursors an hour after they were written, in memory and in the store, and sweeps them', async () => {
    const a = processOn(store, clock)
    const mine = a.forConnection('c1')
    mine.set('c1:q', 10, 'old')
    await mine.flush()
    clock.now = T0 + CURSOR_TTL_MS - 1
    expect(await processOn(store, clock).forConnection('c1').get('c1:q', 10)).toBe('old')
    clock.now = T0 + CURSOR_TTL_MS
    expect(await a.forConnection('c1').get('c1:q', 10)).toBeUndefined()
    expect(await processOn(store, clock).forConnection('c1').walkStart('c1:q', 10)).toEqual({
      offset: 0,
      cursor: undefined,
    })
    // The next write of a process that has not swept for ten minutes deletes every expired row.
    const later = a.forConnection('c2')
    later.set('c2:q', 5, 'new')
    await later.flush()
    await a.swept()
    const rows = await db.selectFrom('list_cursors').select(['connection_id', 'cursor']).execute()
    expect(rows).toEqual([{ connection_id: 'c2', cursor: 'new' }])
  })

  it("does not hold nor fail a list's cursors on the sweep of expired ones, and sweeps past a batch", async () => {
    const bank = processOn(store, clock)
    const old = bank.forConnection('c1')
    for (let i = 1; i <= 2_500; i++) old.set('c1:old', i, `old-${i}`)
    await old.flush()
    clock.now = T0 + CURSOR_TTL_MS + 1
    // A sweep that fails or takes long is no concern of the request whose write started it.
    const sweep = vi.spyOn(store, 'sweep').mockRejectedValueOnce(new Error('deadlock detected'))
    const failing = bank.forConnection('c1')
    failing.set('c1:q', 10, 'kept')
    await expect(failing.flush()).resolves.toBeUndefined()
    expect(await processOn(store, clock).forConnection('c1').get('c1:q', 10)).toBe('kept')
    let release: () => void = () => undefined
    sweep.mockImplementationOnce(() => new Promise<void>((r) => (release = r)))
    clock.now += 600_000
    const slow = bank.forConnection('c1')
    slow.set('c1:q', 20, 'kept too')
    await expect(
      Promise.race([slow.flush().then(() => 'answered'), new Promise((r) => setTimeout(r, 2_000, 'held'))]),
    ).resolves.toBe('answered')
    release()
    await bank.swept()
    sweep.mockRestore()
    // The next one deletes every expired row, whatever their number, and keeps the live ones.
    clock.now += 600_000
    const next = bank.forConnection('c2')
    next.set('c2:q', 5, 'new')
    await next.flush()
    await bank.swept()
    const rows = await db.selectFrom('list_cursors').select('cursor').orderBy('cursor').execute()
    expect(rows.map((r) => r.cursor)).toEqual(['kept', 'kept too', 'new'])
  })

  it('deletes the cursors of a removed connection, and keeps the others', async () => {
    const bank = processOn(store, clock)
    for (const c of ['c1', 'c2']) {
      const cursors = bank.forConnection(c)
      cursors.set(`${c}:q`, 10, `${c}-10`)
      await cursors.flush()
    }
    await db.deleteFrom('connections').where('id', '=', 'c1').execute()
    const rows = await db.selectFrom('list_cursors').select('connection_id').execute()
    expect(rows.map((r) => r.connection_id)).toEqual(['c2'])
  })

  it('drops, without failing, the cursors of a connection deleted while its list was answered', async () => {
    const cursors = processOn(store, clock).forConnection('c1')
    cursors.set('c1:q', 10, 'c1-10')
    await db.deleteFrom('connections').where('id', '=', 'c1').execute()
    await expect(cursors.flush()).resolves.toBeUndefined()
    expect(await db.selectFrom('list_cursors').select('connection_id').execute()).toEqual([])
  })

  it('stores a long walk of cursors in bounded statements', async () => {
    const cursors = processOn(store, clock).forConnection('c1')
    for (let i = 1; i <= 1_200; i++) cursors.set('c1:q', i * 10, `after-${i * 10}`)
    await cursors.flush()
    const other = processOn(store, clock).forConnection('c1')
    expect(await other.walkStart('c1:q', 12_005)).toEqual({ offset: 12_000, cursor: 'after-12000' })
    const count = await db
      .selectFrom('list_cursors')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst()
    expect(Number(count?.n)).toBe(1_200)
  })
})
