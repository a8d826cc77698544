import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HubspotEmulator, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { setSearchesPerSecond } from '../src/integrations/hubspot/search-pace.js'
import type { Harness } from './support/harness.js'
import { connectHubspot } from './support/hubspot.js'
import { useEmulatorSuite } from './support/integration-suite.js'
import { startWebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>
/** Each walk is some fifty to a hundred searches: room for a busy machine, not a timed assertion. */
const WALK_TIMEOUT_MS = 90_000

type SearchBody = { filterGroups: { filters: Rec[] }[]; limit: number; after?: string; sorts: Rec[] }

/** HubSpot's search stops at 10,000 results per query; these tests walk lists longer than that. */
describe('HubSpot search past its 10,000-result cap', () => {
  let h: Harness
  let emu: HubspotEmulator
  let conn: string
  let restorePace: () => void
  const base = () => `/crm/${conn}/contact`
  const searches = () =>
    emu
      .requests()
      .filter((r) => r.path === '/crm/v3/objects/contacts/search' && r.method === 'POST')
      .map((r) => r.body as SearchBody)

  beforeAll(() => {
    // Some fifty searches a walk: the emulator is told to allow them at once, and so is the connector.
    restorePace = setSearchesPerSecond(1000)
  })
  afterAll(() => restorePace())

  useEmulatorSuite({
    // The real 10,000 cap stays; only the request rates are raised so a walk need not wait. Search sees writes
    // at once (searchLagMs 0): these tests change records in the emulator and check them in the same moment,
    // and are about the cap; the index lag has its own test in integration-hubspot.test.ts.
    start: () =>
      startHubspotEmulator({
        seed: 4,
        contacts: 10_300,
        searchPerSecond: 1000,
        tenSecondlyLimit: 100_000,
        searchLagMs: 0,
      }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await connectHubspot(h, emu)
    },
  })

  it(
    'lists a filtered list past 10,000 in id order, restarting the search after the last id read',
    async () => {
      const live = emu.state.liveContacts()
      const since = live.map((c) => c.updatedAt).sort((a, b) => a - b)[150]!
      const expected = live.filter((c) => c.updatedAt >= since).map((c) => c.id)
      expect(expected.length).toBeGreaterThan(10_100)
      const page = async (offset: number, limit: number) => {
        const res = await h.api<Rec[]>('GET', base(), {
          query: { updated_gte: new Date(since).toISOString(), offset, limit, fields: 'id' },
        })
        expect(res.status, res.text).toBe(200)
        return res.body.map((c) => c.id)
      }
      // A page straddling the cap, walked from the start.
      expect(await page(9_900, 200)).toEqual(expected.slice(9_900, 10_100))
      const walk = searches()
      expect(walk.length).toBeGreaterThan(50)
      // No search was ever more than one page into its query, and each went on from the last id read.
      expect(walk.every((b) => b.after === undefined)).toBe(true)
      const bounds = walk.slice(1).map((b) => b.filterGroups[0]!.filters)
      expect(walk[0]!.filterGroups).toEqual([
        { filters: [{ propertyName: 'lastmodifieddate', operator: 'GTE', value: String(since) }] },
      ])
      for (const filters of bounds) {
        expect(filters[0]).toEqual({
          propertyName: 'lastmodifieddate',
          operator: 'GTE',
          value: String(since),
        })
        expect(filters[1]).toMatchObject({ propertyName: 'hs_object_id', operator: 'GT' })
        expect(filters).toHaveLength(2)
      }
      expect(walk.every((b) => b.filterGroups.length === 1)).toBe(true)
      // The next page goes on from the remembered last id: one search.
      emu.clearRequests()
      expect(await page(10_100, 100)).toEqual(expected.slice(10_100, 10_200))
      expect(searches()).toHaveLength(1)
      expect(searches()[0]!.filterGroups[0]!.filters[1]).toEqual({
        propertyName: 'hs_object_id',
        operator: 'GT',
        value: expected[10_099],
      })
      // The end of the list: what is left, then nothing.
      expect(await page(10_200, 1000)).toEqual(expected.slice(10_200))
      // Descending id order goes on below the last id read, as far.
      const desc = await h.api<Rec[]>('GET', base(), {
        query: {
          updated_gte: new Date(since).toISOString(),
          order: 'desc',
          offset: 9_950,
          limit: 100,
          fields: 'id',
        },
      })
      expect(desc.status, desc.text).toBe(200)
      expect(desc.body.map((c) => c.id)).toEqual([...expected].reverse().slice(9_950, 10_050))
    },
    WALK_TIMEOUT_MS,
  )

  it(
    'still refuses a sorted page past the cap naming it: a sort has ties, so no id bound exists',
    async () => {
      const sorted = await h.api<Rec>('GET', base(), {
        query: { sort: 'updated_at', offset: 9_950, limit: 100, fields: 'id' },
      })
      expect(sorted.status).toBe(400)
      expect(sorted.body.message).toContain('10000')
      // It walked by HubSpot's offset and stopped at the cap: no search asked past 10,000 results.
      const walk = searches()
      expect(walk.length).toBeGreaterThan(0)
      expect(walk.every((b) => Number(b.after ?? 0) + b.limit <= 10_000)).toBe(true)
      expect(walk.every((b) => b.filterGroups.length === 0)).toBe(true)
    },
    WALK_TIMEOUT_MS,
  )

  it(
    'delivers every one of more than 10,000 changes to a virtual webhook, each once',
    async () => {
      const receiver = await startWebhookReceiver(h.secret)
      try {
        const created = await h.api<Rec>('POST', '/unified/webhook', {
          body: {
            connection_id: conn,
            hook_url: receiver.url,
            object_type: 'crm_contact',
            event: 'updated',
            interval: 100_000,
            fields: 'id,updated_at',
          },
        })
        expect(created.status, created.text).toBe(200)
        const id = created.body.id as string
        const checkedAt = async () => (await h.api<Rec>('GET', `/unified/webhook/${id}`)).body.checked_at
        for (let i = 0; i < 600 && !(await checkedAt()); i++) await new Promise((r) => setTimeout(r, 25))
        expect(await checkedAt()).toBeTruthy()
        // HubSpot's clock and ours share a millisecond resolution: change strictly after the baseline.
        await new Promise((r) => setTimeout(r, 5))
        const changed = emu.state.liveContacts().slice(0, 10_150)
        const now = Date.now()
        for (const c of changed) c.updatedAt = now
        expect((await h.api('PUT', `/unified/webhook/${id}/trigger`)).status).toBe(200)
        const delivered = () => receiver.accepted(id).flatMap((d) => d.data.map((r) => r.id as string))
        await receiver.waitFor(
          () => new Set(delivered()).size >= changed.length,
          WALK_TIMEOUT_MS - 10_000,
          'every change',
        )
        const ids = delivered()
        expect(new Set(ids)).toEqual(new Set(changed.map((c) => c.id)))
        expect(ids).toHaveLength(changed.length)
        await h.api('DELETE', `/unified/webhook/${id}`)
      } finally {
        await receiver.close()
      }
    },
    WALK_TIMEOUT_MS,
  )
})
