import { describe, expect, it } from 'vitest'
import { maxTimeBuckets, timeBucketKey, timeBucketKeys } from './time-buckets.js'

describe('timeBucketKeys', () => {
  it("lists a zone's local days, the 25-hour day of a daylight-saving change once", () => {
    // New York leaves daylight saving on 2024-11-03 (a 25-hour day).
    const keys = timeBucketKeys(
      'DATE',
      new Date('2024-11-02T04:00:00Z'),
      new Date('2024-11-05T05:00:00Z'),
      'America/New_York',
    )
    expect(keys).toEqual(['2024-11-02', '2024-11-03', '2024-11-04'])
  })

  it('includes the partial first and last days a range overlaps', () => {
    expect(
      timeBucketKeys(
        'DATE',
        new Date('2024-12-20T00:00:00Z'),
        new Date('2024-12-21T00:00:00Z'),
        'America/New_York',
      ),
    ).toEqual(['2024-12-19', '2024-12-20'])
  })

  it('starts hours where the zone starts them, at :30 UTC in Kolkata', () => {
    const keys = timeBucketKeys(
      'HOUR',
      new Date('2024-12-20T10:00:00Z'),
      new Date('2024-12-20T12:00:00Z'),
      'Asia/Kolkata',
    )
    expect(keys).toEqual(['2024-12-20T09:30:00.000Z', '2024-12-20T10:30:00.000Z', '2024-12-20T11:30:00.000Z'])
    // HogQL's toStartOfHour answers the local wall time; it keys the same bucket.
    expect(timeBucketKey('HOUR', '2024-12-20T16:00:00+05:30', 'Asia/Kolkata')).toBe(
      '2024-12-20T10:30:00.000Z',
    )
  })

  it('refuses a range with more buckets than HogQL answers rows', () => {
    expect(() => maxTimeBuckets('HOUR', new Date('2010-01-01Z'), new Date('2025-01-01Z'))).toThrow(
      /at most 50000/,
    )
    expect(maxTimeBuckets('DATE', new Date('2010-01-01Z'), new Date('2025-01-01Z'))).toBeLessThan(50_000)
  })
})
