import { describe, expect, it } from 'vitest'
import { turnsDuring } from '../../test/support/loop-turns.js'
import {
  changesFor,
  classifyByTimestamps,
  classifyOverlapping,
  diffAgainstFingerprints,
  fingerprintOf,
  recordKeyOf,
} from './change-detection.js'

describe('fingerprintOf', () => {
  it('ignores key order and undefined values, but not content', () => {
    expect(fingerprintOf({ a: 1, b: { c: 2, d: 3 } })).toBe(
      fingerprintOf({ b: { d: 3, c: 2 }, a: 1, x: undefined }),
    )
    expect(fingerprintOf({ a: 1 })).not.toBe(fingerprintOf({ a: 2 }))
    expect(fingerprintOf({ a: [1, 2] })).not.toBe(fingerprintOf({ a: [2, 1] }))
  })
})

describe('diffAgainstFingerprints', () => {
  const ann = { id: 'p1', name: 'Ann' }
  const bob = { id: 'p2', name: 'Bob' }
  const previous = new Map([
    [ann.id, fingerprintOf(ann)],
    [bob.id, fingerprintOf(bob)],
  ])

  it('finds created, updated and deleted records', async () => {
    const carl = { id: 'p3', name: 'Carl' }
    const annRenamed = { id: 'p1', name: 'Anna' }
    const diff = await diffAgainstFingerprints([annRenamed, carl], previous)
    expect(diff.created).toEqual([carl])
    expect(diff.updated).toEqual([annRenamed])
    expect(diff.deleted).toEqual(['p2'])
    expect([...diff.next.keys()].sort()).toEqual(['p1', 'p3'])
  })

  it('reports nothing when nothing changed', async () => {
    const diff = await diffAgainstFingerprints([bob, ann], previous)
    expect(diff).toMatchObject({ created: [], updated: [], deleted: [] })
  })

  it('keys records without an id by their content, and counts a duplicate once', async () => {
    expect(recordKeyOf({ name: 'x' })).toMatch(/^#/)
    const diff = await diffAgainstFingerprints([ann, ann], new Map())
    expect(diff.created).toHaveLength(1)
  })
})

describe('a check of many records', () => {
  it('lets the event loop turn while it fingerprints them, not only once they are all done', async () => {
    const records = Array.from({ length: 100_100 }, (_, i) => ({
      id: `id-${i}`,
      created_at: new Date(i).toISOString(),
      name: 'pageview',
      page_url: `https://example.com/p/${i}`,
      raw: { a: 1, b: 'two', c: [1, 2, 3], d: { e: 'f', g: i } },
    }))
    // Fingerprinted at once, the records held every request of the process for 0.7 to 1.2 s.
    const { result: diff, turns } = await turnsDuring(() => diffAgainstFingerprints(records, new Map()))
    expect(diff.created).toHaveLength(100_100)
    expect(turns).toBeGreaterThanOrEqual(100)
  })

  it('turns by the text fingerprinted too, so few large records do not hold it either', async () => {
    // 1,000 records of some 32 KB each: one slice by count, 32 MB of text (a 700 ms pause, a review measured).
    const big = 'x'.repeat(32 * 1024)
    const records = Array.from({ length: 1000 }, (_, i) => ({ id: `id-${i}`, name: big }))
    const { result: diff, turns } = await turnsDuring(() => diffAgainstFingerprints(records, new Map()))
    expect(diff.created).toHaveLength(1000)
    expect(turns).toBeGreaterThanOrEqual(30)
  })
})

describe('classifyByTimestamps', () => {
  it('splits records read since a cursor into created and updated', () => {
    const since = '2025-01-01T00:00:00.000Z'
    const fresh = { id: 'a', created_at: '2025-01-01T00:00:00.000Z' }
    const old = { id: 'b', created_at: '2024-12-31T23:59:59.000Z' }
    const unknown = { id: 'c' }
    expect(classifyByTimestamps([fresh, old, unknown], since)).toEqual({
      created: [fresh],
      updated: [old, unknown],
    })
  })

  it('counts every record read as created where the provider never changes one (a lagging export)', () => {
    const since = '2025-01-01T03:00:00.000Z'
    const lagged = { id: 'a', created_at: '2025-01-01T00:30:00.000Z' }
    const fresh = { id: 'b', created_at: '2025-01-01T03:10:00.000Z' }
    expect(classifyByTimestamps([lagged, fresh], since, true)).toEqual({
      created: [lagged, fresh],
      updated: [],
    })
  })
})

describe('changesFor', () => {
  it('delivers deleted records as their id', () => {
    expect(changesFor('deleted', { created: [], updated: [], deleted: ['p2', '#abc'] })).toEqual([
      { id: 'p2' },
    ])
    expect(changesFor('created', { created: [{ id: 'x' }], updated: [] })).toEqual([{ id: 'x' }])
  })
})

describe('records read back over a lagging updated_gte', () => {
  const cursor = '2024-05-01T10:00:00.000Z'
  const lag = 60_000
  const rec = (id: string, created: string, name = 'a') => ({ id, created_at: created, name })

  it('deliver a change listed late, skip what the last read delivered unchanged, and split by the window', async () => {
    const delivered = rec('1', '2024-04-01T00:00:00.000Z')
    const previous = new Map([[recordKeyOf(delivered), fingerprintOf(delivered)]])
    const split = await classifyOverlapping(
      [
        delivered,
        rec('2', '2024-04-01T00:00:00.000Z'),
        rec('3', '2024-05-01T09:59:30.000Z'),
        rec('4', '2024-04-01T00:00:00.000Z', 'renamed'),
      ],
      new Map([...previous, ['4', fingerprintOf(rec('4', '2024-04-01T00:00:00.000Z'))], ['5', 'x']]),
      cursor,
      lag,
    )
    expect(split.created.map((r) => r.id)).toEqual(['3'])
    expect(split.updated.map((r) => r.id).sort()).toEqual(['2', '4'])
    expect(split.gone).toEqual(['5'])
    expect([...split.seen.keys()].sort()).toEqual(['1', '2', '3', '4'])
  })
})
