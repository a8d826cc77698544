import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_HUBSPOT_TOKEN,
  type HubspotEmulator,
  startHubspotEmulator,
} from '../emulators/hubspot/index.js'
import { DEFAULT_MATOMO_TOKEN, type MatomoEmulator, startMatomoEmulator } from '../emulators/matomo/index.js'
import { loadConfig } from '../src/config.js'
import { createServices } from '../src/services.js'
import { type Db, openDatabase } from '../src/store/index.js'
import { queryString } from './support/harness.js'
import {
  callApi,
  killAllServerProcesses,
  type ServerProcess,
  startServerProcess,
} from './support/server-process.js'
import { type StoreKind, storeKinds } from './support/stores.js'

type Rec = Record<string, unknown>

/** A fresh PostgreSQL database of its own (the processes use the default schemas, as deployed). */
async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `unigate_cursors_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(process.env.TEST_DATABASE_URL as string)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const again = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
      await again.connect()
      await again.query(`drop database if exists ${name} with (force)`)
      await again.end()
    },
  }
}

/** A Matomo manual zone where it is about noon now, so the visits and an action tracked now share a day. */
function noonZone(): string {
  const offset = 12 - new Date().getUTCHours()
  return `UTC${offset >= 0 ? '+' : ''}${offset}`
}

/**
 * Two server processes on one store (one fresh PostgreSQL database, or one SQLite file), as behind a load
 * balancer: a listing read partly on each continues where the page before left off, whichever read it.
 */
describe.each(storeKinds())('list cursors shared by two server processes on %s', (store: StoreKind) => {
  let a: ServerProcess
  let b: ServerProcess
  let db: Db
  let key: string
  let matomo: MatomoEmulator
  let hubspot: HubspotEmulator
  let matomoConn: string
  let hubspotConn: string
  let dropDatabase: (() => Promise<void>) | undefined

  const get = async <T>(on: ServerProcess, path: string, query: Rec) => {
    const res = await callApi<T>(on.url, key, 'GET', `${path}${queryString(query as never)}`)
    expect(res.status, res.text).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    matomo = await startMatomoEmulator({ seed: 5, sites: 1, visitsPerSite: 3 })
    hubspot = await startHubspotEmulator({ seed: 4, contacts: 230 })
    const env: Record<string, string> = {
      UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-cursors-')),
      UNIGATE_MASTER_KEY: randomBytes(32).toString('base64'),
      UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
    }
    if (store === 'postgres') {
      const database = await freshDatabase()
      env.DATABASE_URL = database.url
      dropDatabase = database.drop
    }
    const config = loadConfig(env)
    const services = await createServices(config, { background: false })
    const { workspace } = await services.workspaces.create('cursors')
    key = (await services.apiKeys.issue(workspace.id)).apiKey
    await services.close()
    db = openDatabase({ databaseUrl: config.databaseUrl, sqliteFile: join(config.dataDir, 'unigate.db') })
    ;[a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)])
    const connect = async (body: Rec) => {
      const res = await callApi<{ id: string }>(a.url, key, 'POST', '/unified/connection', body)
      expect(res.status, res.text).toBe(200)
      return res.body.id
    }
    matomoConn = await connect({
      integration_type: 'matomo',
      auth: { token_auth: DEFAULT_MATOMO_TOKEN, api_url: matomo.url },
    })
    hubspotConn = await connect({
      integration_type: 'hubspot',
      auth: { token: DEFAULT_HUBSPOT_TOKEN, api_url: hubspot.url },
    })
  }, 60_000)

  afterAll(async () => {
    await killAllServerProcesses()
    await db?.destroy()
    await matomo?.close()
    await hubspot?.close()
    await dropDatabase?.()
  })

  /** Eight visits of two actions, newest first in Live; `track` gives one a new action, moving it to the front. */
  function busySite() {
    const site = matomo.state.addSite({ siteName: 'Busy', timezone: noonZone() })
    const idSite = String(site.idsite)
    const now = Math.floor(Date.now() / 1000)
    const r = matomo.state.nextRandom(808)
    for (let i = 0; i < 8; i++) {
      const visitor = `00000000000000${String(i).padStart(2, '0')}`
      matomo.state.insertVisit(matomo.state.newVisit(r, idSite, visitor, now - 600 + i * 60, 2))
    }
    const ids = () => matomo.state.visitsOf(idSite).map((v) => `${idSite}:${v.idVisit}`)
    const track = async (id: string) => {
      // In a later second than the page just read: Matomo's times are whole seconds.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5))
      const visit = matomo.state.visitsOf(idSite).find((v) => `${idSite}:${v.idVisit}` === id)!
      const res = await fetch(`${matomo.url}/matomo.php`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          requests: [`?idsite=${idSite}&rec=1&cid=${visit.visitorId}&url=https%3A%2F%2Fbusy.example%2Fnew`],
          token_auth: DEFAULT_MATOMO_TOKEN,
        }),
      })
      expect(await res.json()).toMatchObject({ tracked: 1 })
      // Live now lists it first (newest first).
      expect(ids()[0]).toBe(id)
    }
    const page = async (on: ServerProcess, offset: number) =>
      (
        await get<Rec[]>(on, `/analytics/${matomoConn}/session`, { property_id: idSite, offset, limit: 3 })
      ).map((s) => String(s.id))
    return { ids, track, page }
  }

  it('reads Matomo sessions page by page on both instances as the log stood at the first page', async () => {
    const { ids, track, page } = busySite()
    const expected = ids()
    const got = await page(a, 0)
    await track(expected[5] as string)
    got.push(...(await page(b, 3)))
    got.push(...(await page(a, 6)))
    // Each visit once, in the order of the first page's moment: the moved one neither repeats nor vanishes.
    expect(got).toEqual(expected)
  })

  it('continues the listing started last, on either instance, not one an instance read before', async () => {
    const { ids, track, page } = busySite()
    await page(a, 0)
    await page(a, 3)
    await track(ids()[4] as string)
    // The caller starts over on B (in a later second than the action); A read the earlier listing's page at 3.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5))
    const expected = ids()
    const got = await page(b, 0)
    await track(ids()[5] as string)
    got.push(...(await page(a, 3)))
    got.push(...(await page(b, 6)))
    expect(got).toEqual(expected)
  })

  it('reads HubSpot page N on one instance with one call after pages up to N-1 on the other', async () => {
    const ids = hubspot.state.liveContacts().map((c) => c.id)
    const page = async (on: ServerProcess, offset: number) =>
      (await get<Rec[]>(on, `/crm/${hubspotConn}/contact`, { offset, limit: 30, fields: 'id' })).map(
        (c) => c.id,
      )
    const got = [...(await page(a, 0)), ...(await page(a, 30)), ...(await page(a, 60))]
    const listCalls = () => hubspot.requests().filter((r) => r.path === '/crm/v3/objects/contacts')
    hubspot.clearRequests()
    got.push(...(await page(b, 90)))
    expect(listCalls().map((r) => [r.query.limit, typeof r.query.after])).toEqual([['30', 'string']])
    hubspot.clearRequests()
    // And back: A continues from the cursor B left.
    got.push(...(await page(a, 120)))
    expect(listCalls().map((r) => [r.query.limit, typeof r.query.after])).toEqual([['30', 'string']])
    expect(got).toEqual(ids.slice(0, 150))
  })

  it('answers 503 rather than a page whose end the store could not record, and the page once it can', async () => {
    const query = { offset: 0, limit: 11, fields: 'id' }
    const path = `/crm/${hubspotConn}/contact${queryString(query)}`
    await sql`alter table list_cursors rename to list_cursors_parked`.execute(db)
    try {
      const res = await callApi<Rec>(a.url, key, 'GET', path)
      expect(res.status, res.text).toBe(503)
      expect(res.body).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message:
          'the page was read from the provider, but the store could not record where it ended, which the next page needs; retry the request',
      })
    } finally {
      await sql`alter table list_cursors_parked rename to list_cursors`.execute(db)
    }
    const first = await get<Rec[]>(a, `/crm/${hubspotConn}/contact`, query)
    expect(first).toHaveLength(11)
    // Where it ended is stored this time: the other process reads the next page with one call.
    hubspot.clearRequests()
    const next = await get<Rec[]>(b, `/crm/${hubspotConn}/contact`, { ...query, offset: 11 })
    expect(next).toHaveLength(11)
    const listCalls = hubspot.requests().filter((r) => r.path === '/crm/v3/objects/contacts')
    expect(listCalls.map((r) => [r.query.limit, typeof r.query.after])).toEqual([['11', 'string']])
  })

  it('keeps only a hash of each scope in the store, and drops the rows with their connection', async () => {
    const rows = await db.selectFrom('list_cursors').selectAll().execute()
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row.scope_hash).toMatch(/^[0-9a-f]{64}$/)
      expect([matomoConn, hubspotConn]).toContain(row.connection_id)
    }
    const removed = await callApi(b.url, key, 'DELETE', `/unified/connection/${hubspotConn}`)
    expect(removed.status).toBe(200)
    const left = await db.selectFrom('list_cursors').select('connection_id').execute()
    expect(left.map((r) => r.connection_id)).not.toContain(hubspotConn)
    expect(left.length).toBeGreaterThan(0)
  })
})
