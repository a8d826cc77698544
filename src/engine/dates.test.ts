import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoString, isoTextOf, parseQueryDate } from './dates.js'

describe('parseQueryDate', () => {
  it.each([
    ['2024-01-02', '2024-01-02T00:00:00.000Z'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.000Z'],
    ['2024-01-02T03:04:05.123Z', '2024-01-02T03:04:05.123Z'],
    ['2024-01-02T03:04:05+02:00', '2024-01-02T01:04:05.000Z'],
    ['2024-01-02T03:04', '2024-01-02T03:04:00.000Z'],
    // Years 0-99 are themselves, not 1900-1999: year 0 is a leap year, 1900 is not.
    ['0000-02-29', '0000-02-29T00:00:00.000Z'],
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
  ])('%s', (input, expected) => {
    expect(parseQueryDate(input)?.toISOString()).toBe(expected)
  })
  it.each(['yesterday', '2024-02-31', '0001-02-29', '2024-13-01', '1700000000', '2024-01-02 03:04:05', ''])(
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

describe('isoTextOf', () => {
  /** isoTextOf answers the native text or leaves it to a Date (undefined), never anything else. */
  const agrees = (text: string) => {
    const fast = isoTextOf(text)
    if (fast === undefined) return
    expect(fast).toBe(new Date(text).toISOString())
  }
  const digits = (n: number) =>
    fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n })

  it("writes HogQL's timestamps as new Date(text).toISOString() does, without a Date", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        fc.integer({ min: 0, max: 6 }).chain(digits),
        (d, more) => {
          const text = `${d.toISOString().slice(0, 23)}${more}Z`
          expect(isoTextOf(text)).toBe(new Date(text).toISOString())
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('answers the native text or nothing for any digits in every position, impossible dates included', () => {
    fc.assert(
      fc.property(
        digits(4),
        digits(2),
        digits(2),
        digits(2),
        digits(2),
        digits(2),
        fc.integer({ min: 0, max: 12 }).chain(digits),
        fc.constantFrom('Z', 'z', '+00:00', ''),
        (y, mo, d, h, mi, s, fraction, zone) => {
          agrees(`${y}-${mo}-${d}T${h}:${mi}:${s}.${fraction}${zone}`)
        },
      ),
      { numRuns: 5000 },
    )
    fc.assert(
      fc.property(fc.string({ maxLength: 32 }), (text) => {
        agrees(text)
      }),
    )
  })

  it('leaves other forms and rolled-over dates to a Date', () => {
    for (const text of [
      '2023-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2024-04-31T00:00:00.000Z',
      '2024-12-31T24:00:00.000000Z',
      '2024-12-31T23:59:60.000Z',
      '2024-12-31t00:04:40.133Z',
      '2024-12-31 00:04:40.133000Z',
      '2024-12-31T00:04:40Z',
      '2024-12-31T00:04:40.13Z',
      '2024-12-31T00:04:40.133000+00:00',
      '2024-12-31T00:04:40.1234567891Z',
      '+002024-12-31T00:04:40.133Z',
    ])
      expect(isoTextOf(text)).toBeUndefined()
    expect(isoTextOf('2024-02-29T23:59:59.999999Z')).toBe('2024-02-29T23:59:59.999Z')
    expect(isoTextOf('2000-02-29T00:00:00.000Z')).toBe('2000-02-29T00:00:00.000Z')
  })
})
