import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoString, parseQueryDate } from './dates.js'

describe('parseQueryDate', () => {
  it.each([
    ['2024-01-02', '2024-01-02T00:00:00.000Z'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T03:04:05.123Z', '2024-01-02T03:04:05.123Z'],
    ['2024-01-02T03:04:05+02:00', '2024-01-02T01:04:05.000Z'],
    ['2024-01-02T03:04', '2024-01-02T03:04:00.000Z'],
  ])('%s', (input, expected) => {
    expect(parseQueryDate(input)?.toISOString()).toBe(expected)
  })
  it.each(['yesterday', '2024-02-31', '2024-13-01', '1700000000', '2024-01-02 03:04:05', ''])(
    'refuses %j',
    (input) => {
      expect(parseQueryDate(input)).toBeUndefined()
    },
  )
})

describe('isoString', () => {
  const native = (ms: number) => new Date(ms).toISOString()

  it('writes exactly what toISOString writes, for any instant Date can hold', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoString(new Date(ms))).toBe(native(ms))
      }),
      { numRuns: 5000 },
    )
  })

  it('writes the four-digit years, their edges and leap days as toISOString does', () => {
    const instants = [
      -62_167_219_200_001,
      -62_167_219_200_000,
      0,
      -1,
      951_782_400_000,
      951_868_799_999,
      4_107_542_400_000,
      253_402_300_799_999,
      253_402_300_800_000,
      Date.parse('1900-02-28T23:59:59.999Z'),
      Date.parse('2024-02-29T12:00:00Z'),
      Date.parse('1969-12-31T23:59:59.999Z'),
    ]
    for (const ms of instants) expect(isoString(new Date(ms))).toBe(native(ms))
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        expect(isoString(new Date(ms))).toBe(native(ms))
      }),
      { numRuns: 20_000 },
    )
  })

  it('throws for an invalid date as toISOString does', () => {
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError)
  })
})
