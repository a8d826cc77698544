import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { turnsDuring } from '../../test/support/loop-turns.js'
import {
  canonicalJson,
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

/** The canonical text as it was written before it was one pass (level by level), which stored fingerprints hold. */
function levelByLevel(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(levelByLevel).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${levelByLevel(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

describe('canonicalJson', () => {
  it('writes the text fingerprints were made of before, so none kept by a webhook reads as changed', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('10', '2', 'a', 'B', '', '__proto__'))
    const value = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.jsonValue({ maxDepth: 1 }),
        fc.constantFrom(undefined, null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(key, tie('node'), { maxKeys: 4 }),
      ),
    })).node
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(levelByLevel(v))
      }),
    )
    // An array with holes (no record parsed from JSON has one, a mapper could make one).
    // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
    const sparse = { a: [, 1, undefined, null] }
    expect(canonicalJson(sparse)).toBe(levelByLevel(sparse))
  })

  it("copies a deeply nested value's text once, not once per level", () => {
    // A provider's raw data 2,000 levels deep around 1 MB: written level by level, each level copied all
    // of the text inside it again (2 GB of copies, 20 s of a held event loop in a virtual webhook's check).
    const depth = 2000
    const deep = JSON.parse(
      `${'['.repeat(depth)}${JSON.stringify('x'.repeat(1_000_000))}${',0]'.repeat(depth)}`,
    )
    let joined = 0
    const join = Array.prototype.join
    const spy = vi.spyOn(Array.prototype, 'join').mockImplementation(function (this: unknown[], separator) {
      const text = join.call(this, separator)
      joined += text.length
      return text
    })
    let text: string
    try {
      text = canonicalJson({ id: 'a', raw: deep })
    } finally {
      spy.mockRestore()
    }
    expect(text.length).toBe(1_000_002 + 4 * depth + '{"id":"a","raw":}'.length)
    expect(joined).toBeLessThanOrEqual(2 * text.length)
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
