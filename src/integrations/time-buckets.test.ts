import { describe, expect, it } from 'vitest'
import {
  TIME_BUCKET_LABEL_FORMS,
  TIME_DIMENSIONS,
  timeBucketLabel,
  timeBucketLabelAt,
  timeBucketLabelOf,
  wallTimeOf,
} from './time-buckets.js'

describe('time bucket labels', () => {
  const wall = { year: 2026, month: 11, day: 5, hour: 7 }

  it('formats each time dimension in its one form', () => {
    expect(timeBucketLabel('DATE', wall)).toBe('2026-11-05')
    expect(timeBucketLabel('HOUR', wall)).toBe('2026-11-05T07:00')
    expect(timeBucketLabel('WEEK', wall)).toBe('2026-11-05')
    expect(timeBucketLabel('MONTH', wall)).toBe('2026-11')
    expect(timeBucketLabel('YEAR', wall)).toBe('2026')
    for (const d of TIME_DIMENSIONS) expect(timeBucketLabel(d, wall)).toMatch(TIME_BUCKET_LABEL_FORMS[d])
  })

  it("labels a week that began before the window by the window's first day, and only a week", () => {
    const monday = { year: 2026, month: 8, day: 31 }
    expect(timeBucketLabel('WEEK', monday, '2026-09-02')).toBe('2026-09-02')
    expect(timeBucketLabel('WEEK', { year: 2026, month: 9, day: 7 }, '2026-09-02')).toBe('2026-09-07')
    expect(timeBucketLabel('DATE', monday, '2026-09-02')).toBe('2026-08-31')
  })

  it("labels an instant by the zone's wall clock", () => {
    // 07:00Z is midnight in Los Angeles (PDT), 08:00 in London (BST)
    const instant = Date.parse('2026-10-25T07:00:00Z')
    expect(timeBucketLabelAt('HOUR', instant, 'America/Los_Angeles')).toBe('2026-10-25T00:00')
    expect(timeBucketLabelAt('HOUR', new Date(instant), 'UTC')).toBe('2026-10-25T07:00')
    expect(timeBucketLabelAt('DATE', Date.parse('2026-10-25T06:59:00Z'), 'America/Los_Angeles')).toBe(
      '2026-10-24',
    )
    // Kolkata's hours start at :30 UTC; the label is the local hour.
    expect(timeBucketLabelAt('HOUR', Date.parse('2026-10-25T10:30:00Z'), 'Asia/Kolkata')).toBe(
      '2026-10-25T16:00',
    )
    expect(timeBucketLabelAt('MONTH', Date.parse('2026-10-31T23:30:00Z'), 'Europe/Paris')).toBe('2026-11')
    expect(timeBucketLabelAt('YEAR', Date.parse('2026-12-31T23:30:00Z'), 'Asia/Tokyo')).toBe('2027')
    expect(
      timeBucketLabelAt('WEEK', Date.parse('2026-08-31T04:00:00Z'), 'America/New_York', '2026-09-02'),
    ).toBe('2026-09-02')
  })

  it('gives both hours a clock change repeats the same local label (start_at tells them apart)', () => {
    // London leaves summer time at 02:00 BST on 2026-10-25: 00:00Z and 01:00Z are both 01:00 local.
    expect(timeBucketLabelAt('HOUR', Date.parse('2026-10-25T00:00:00Z'), 'Europe/London')).toBe(
      '2026-10-25T01:00',
    )
    expect(timeBucketLabelAt('HOUR', Date.parse('2026-10-25T01:00:00Z'), 'Europe/London')).toBe(
      '2026-10-25T01:00',
    )
  })

  it("reads the providers' local bucket texts", () => {
    expect(timeBucketLabelOf('HOUR', '2026-11-25 01:00:00')).toBe('2026-11-25T01:00') // Mixpanel, Plausible, Fathom
    expect(timeBucketLabelOf('HOUR', '2026-11-25T01:00')).toBe('2026-11-25T01:00') // Amplitude
    expect(timeBucketLabelOf('HOUR', '2026-11-25T01')).toBe('2026-11-25T01:00')
    expect(timeBucketLabelOf('HOUR', '2026-11-25T01:00:00.000')).toBe('2026-11-25T01:00')
    expect(timeBucketLabelOf('MONTH', '2026-11-01')).toBe('2026-11') // Plausible, Mixpanel
    expect(timeBucketLabelOf('MONTH', '2026-11')).toBe('2026-11') // Matomo, Fathom, YouTube
    expect(timeBucketLabelOf('YEAR', '2026')).toBe('2026')
    expect(timeBucketLabelOf('DATE', '2026-11-25')).toBe('2026-11-25')
    expect(timeBucketLabelOf('WEEK', '2026-08-31', '2026-09-02')).toBe('2026-09-02')
    expect(timeBucketLabelOf('WEEK', '2026-09-07', '2026-09-02')).toBe('2026-09-07')
  })

  it('reads nothing from an instant with a zone, a compact form or a date that does not exist', () => {
    for (const text of [
      '2026-11-25T01:00:00Z',
      '2026-11-25T01:00:00+02:00',
      '202648',
      '2026112501',
      '2026-02-30',
      '2026-11-25 24:00:00',
      '2026-11-25 10:60:00',
      '(not set)',
      '',
    ]) {
      expect(wallTimeOf(text), text).toBeUndefined()
      expect(timeBucketLabelOf('DATE', text), text).toBeUndefined()
    }
  })
})
