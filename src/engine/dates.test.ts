import { describe, expect, it } from 'vitest'
import { parseQueryDate } from './dates.js'

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
