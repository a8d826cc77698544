import { describe, expect, it } from 'vitest'
import { addDays, dayIn, daysBetween, offsetMs, secondsUntilMidnightIn, zonedStart } from './zones.js'

describe('zone arithmetic', () => {
  it('finds midnight of a day in a zone west of UTC, across daylight saving', () => {
    expect(zonedStart('2024-05-01', 'America/Los_Angeles').toISOString()).toBe('2024-05-01T07:00:00.000Z')
    expect(zonedStart('2024-01-15', 'America/Los_Angeles').toISOString()).toBe('2024-01-15T08:00:00.000Z')
    // 2024-03-10 is the spring-forward day in the US: midnight is still PST.
    expect(zonedStart('2024-03-10', 'America/Los_Angeles').toISOString()).toBe('2024-03-10T08:00:00.000Z')
    expect(zonedStart('2024-03-11', 'America/Los_Angeles').toISOString()).toBe('2024-03-11T07:00:00.000Z')
  })

  it('finds midnight east of UTC and an hour within the day', () => {
    expect(zonedStart('2024-07-01', 'Europe/Paris').toISOString()).toBe('2024-06-30T22:00:00.000Z')
    expect(zonedStart('2024-07-01', 'Asia/Kolkata', 13).toISOString()).toBe('2024-07-01T07:30:00.000Z')
  })

  it('names the calendar day of an instant in a zone', () => {
    const instant = Date.parse('2024-05-01T05:00:00Z')
    expect(dayIn(instant, 'America/Los_Angeles')).toBe('2024-04-30')
    expect(dayIn(instant, 'Europe/Paris')).toBe('2024-05-01')
  })

  it('adds days over month and year ends', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29')
    expect(addDays('2024-12-31', 1)).toBe('2025-01-01')
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29')
  })

  it('counts years before 1000 as themselves, 1 BC as year 0 and beyond 9999 in the expanded form', () => {
    // Date.UTC reads years 0-99 as 1900-1999; Intl writes 1 BC as year 1. Los Angeles kept local mean time
    // (UTC-7:52:58) until 1883.
    expect(zonedStart('0001-01-01', 'America/Los_Angeles').toISOString()).toBe('0001-01-01T07:52:58.000Z')
    expect(zonedStart('0050-03-01', 'UTC').toISOString()).toBe('0050-03-01T00:00:00.000Z')
    expect(dayIn(Date.parse('0001-01-01T05:00:00Z'), 'America/Los_Angeles')).toBe('0000-12-31')
    expect(dayIn(Date.parse('0000-01-01T05:00:00Z'), 'America/Los_Angeles')).toBe('-000001-12-31')
    expect(dayIn(Date.parse('9999-12-31T20:00:00Z'), 'Asia/Tokyo')).toBe('+010000-01-01')
    expect(zonedStart('-000001-12-31', 'UTC').toISOString()).toBe('-000001-12-31T00:00:00.000Z')
    expect(offsetMs(Date.parse('0000-06-01T00:00:00Z'), 'UTC')).toBe(0)
    expect(addDays('0001-01-01', -1)).toBe('0000-12-31')
    expect(addDays('0000-02-28', 1)).toBe('0000-02-29')
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01')
    expect(addDays('9999-12-31', 1)).toBe('+010000-01-01')
    expect(daysBetween('0001-01-01', '0002-01-01')).toBe(365)
    expect(daysBetween('0004-01-01', '0005-01-01')).toBe(366)
    expect(daysBetween('0001-01-01', '2001-01-01')).toBe(730_485)
  })

  it('counts the seconds to the next Pacific midnight', () => {
    const now = Date.parse('2024-05-01T06:59:00Z') // 23:59 PDT
    expect(secondsUntilMidnightIn('America/Los_Angeles', now)).toBe(60)
  })
})
