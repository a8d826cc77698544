import { describe, expect, it } from 'vitest'
import { modelOf } from '../models/index.js'
import { parseFields, planFields, projectRecord, recordShaper } from './fields.js'

const visitor = modelOf('analytics_visitor')!
const SLOW = ['total_events', 'raw.cohorts']

describe('parseFields', () => {
  it('accepts repeated and comma-joined forms alike', () => {
    const a = parseFields(['id', 'name', 'raw'], visitor)
    const b = parseFields('id,name,raw', visitor)
    expect([...a.listed!]).toEqual([...b.listed!])
    expect(a.raw).toBe(true)
  })
  it('collects raw.<name> sub-selections', () => {
    expect(parseFields('id,raw.plan,raw.cohorts', visitor).rawNames).toEqual(['plan', 'cohorts'])
  })
  it('names each raw.<name> once however often it was asked: connectors pick every name from every record', () => {
    const names = ['id', ...Array.from({ length: 1000 }, () => 'raw.plan'), 'raw.cohorts', 'raw.plan']
    expect(parseFields(names, visitor).rawNames).toEqual(['plan', 'cohorts'])
  })
  it('refuses unknown field names, naming the field and the allowed ones', () => {
    expect(() => parseFields('id,bogus', visitor)).toThrow(/unknown field 'bogus'.*allowed: id/)
  })
  it('refuses a bare raw. prefix', () => {
    expect(() => parseFields('raw.', visitor)).toThrow(/raw\.<name>/)
  })
  it('answers the same frozen selection for the same text, repeated or comma-joined, per model', () => {
    const first = parseFields('id,name,raw.plan', visitor)
    expect(parseFields(['id', 'name', 'raw.plan'], visitor)).toBe(first)
    expect(Object.isFrozen(first) && Object.isFrozen(first.rawNames)).toBe(true)
    const event = parseFields('id,name', modelOf('analytics_event')!)
    expect(event).not.toBe(parseFields('id,name', visitor))
  })
  it('refuses an unknown name every time it is asked', () => {
    for (let i = 0; i < 3; i++)
      expect(() => parseFields('id,bogus', visitor)).toThrow(/unknown field 'bogus'/)
  })
  it('keeps a bounded number of texts: past the bound a text is parsed again, into an equal selection', () => {
    const first = parseFields('id,email', visitor)
    for (let i = 0; i < 300; i++) parseFields(`id,raw.p${i}`, visitor)
    const again = parseFields('id,email', visitor)
    expect(again).not.toBe(first)
    expect([...again.listed!]).toEqual(['id', 'email'])
  })
  it('keeps a bounded number of characters: a few long texts start the memo over too', () => {
    const first = parseFields('id,name', visitor)
    const long = (i: number) => `id,${Array.from({ length: 150 }, (_, j) => `raw.q${i}x${j}`).join(',')}`
    for (let i = 0; i < 12; i++) expect(long(i).length).toBeLessThan(2048)
    for (let i = 0; i < 12; i++) parseFields(long(i), visitor)
    expect(parseFields('id,name', visitor)).not.toBe(first)
  })
  it('parses a text longer than the memo keeps each time, as any other', () => {
    const long = `id,${Array.from({ length: 400 }, (_, i) => `raw.p${i}`).join(',')}`
    const a = parseFields(long, visitor)
    expect(parseFields(long, visitor)).not.toBe(a)
    expect(a.rawNames).toHaveLength(400)
  })
})

describe('planFields follows the opt-in table of spec section 7', () => {
  const none = parseFields(undefined, visitor)
  const fast = parseFields('id,name', visitor)
  const slow = parseFields('id,total_events', visitor)
  const slowRaw = parseFields('id,raw.cohorts', visitor)
  const fastRaw = parseFields('id,raw.plan', visitor)
  it.each([
    ['opt-out, no fields', none, false, []],
    ['opt-out, fast fields', fast, false, []],
    ['opt-out, a slow field', slow, false, ['total_events']],
    ['opt-in, no fields', none, true, SLOW],
    ['opt-in, fast fields', fast, true, []],
    ['opt-in, a slow field', slow, true, ['total_events']],
    ['nested slow raw field', slowRaw, false, ['raw.cohorts']],
    ['nested fast raw field', fastRaw, false, []],
  ])('%s', (_name, selection, optIn, expected) => {
    expect([...planFields(selection, SLOW, optIn).slow]).toEqual(expected)
  })
})

describe('recordShaper', () => {
  it('makes one shaper per listed field set, and a shaper per plan where nothing was listed', () => {
    const listed = parseFields('id,name', visitor)
    const shaper = recordShaper(visitor, listed, planFields(listed, SLOW, false), SLOW)
    expect(recordShaper(visitor, listed, planFields(listed, SLOW, true), SLOW)).toBe(shaper)
    expect(shaper({ id: 'v1', name: 'Ann', email: 'a@example.com' })).toEqual({ id: 'v1', name: 'Ann' })
    const none = parseFields(undefined, visitor)
    const optedIn = recordShaper(visitor, none, planFields(none, SLOW, true), SLOW)
    const optedOut = recordShaper(visitor, none, planFields(none, SLOW, false), SLOW)
    expect(optedIn({ id: 'v1', total_events: 4 })).toEqual({ id: 'v1', total_events: 4 })
    expect(optedOut({ id: 'v1', total_events: 4 })).toEqual({ id: 'v1' })
  })
})

describe('projectRecord', () => {
  const record = {
    id: 'v1',
    name: 'Ann',
    email: null,
    total_events: 4,
    first_seen_at: new Date('2024-01-02T03:04:05Z'),
    raw: { plan: 'pro', cohorts: [1], empty: null },
  }
  it('without fields: every fast field, no raw, no null, ISO dates', () => {
    const s = parseFields(undefined, visitor)
    expect(projectRecord(record, visitor, s, planFields(s, SLOW, false), SLOW)).toEqual({
      id: 'v1',
      name: 'Ann',
      first_seen_at: '2024-01-02T03:04:05.000Z',
    })
  })
  it('with fields: only those, and raw.<name> picks provider fields', () => {
    const s = parseFields('id,raw.plan', visitor)
    expect(projectRecord(record, visitor, s, planFields(s, SLOW, false), SLOW)).toEqual({
      id: 'v1',
      raw: { plan: 'pro' },
    })
  })
  it('an empty list is left out like a missing value, asked for or not', () => {
    const listed = { ...record, metadata: [], raw: { plan: 'pro', cohorts: [] } }
    for (const s of [parseFields(undefined, visitor), parseFields('id,metadata,raw', visitor)]) {
      const out = projectRecord(listed, visitor, s, planFields(s, SLOW, false), SLOW)
      expect(out).not.toHaveProperty('metadata')
      // raw is the provider's record, unmodified.
      if (out.raw) expect(out.raw).toEqual({ plan: 'pro', cohorts: [] })
    }
  })
  it('raw in fields returns the provider record unmodified', () => {
    const s = parseFields('raw', visitor)
    expect(projectRecord(record, visitor, s, planFields(s, SLOW, false), SLOW)).toEqual({ raw: record.raw })
  })
})
