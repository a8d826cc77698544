import { describe, expect, it } from 'vitest'
import type { ListQuery } from '../types.js'
import { requestedDays, resolveDays } from './report-days.js'

const q = (filters: ListQuery['filters']): ListQuery => ({ limit: 100, offset: 0, filters })

describe('report days', () => {
  it('reads start_gte as the first day and end_lt as the day after the last', () => {
    expect(
      requestedDays(
        q({ start_gte: new Date('2024-05-01T00:00:00Z'), end_lt: new Date('2024-05-08T00:00:00Z') }),
        'GA4',
        'the zone',
      ),
    ).toEqual({ startDate: '2024-05-01', endDate: '2024-05-07' })
  })

  it('refuses a time of day instead of widening it to a whole day', () => {
    expect(() =>
      requestedDays(q({ start_gte: new Date('2024-05-01T10:00:00Z') }), 'GA4', 'the zone'),
    ).toThrow(/whole days/)
  })

  it('refuses an empty range', () => {
    expect(() =>
      requestedDays(
        q({ start_gte: new Date('2024-05-02T00:00:00Z'), end_lt: new Date('2024-05-02T00:00:00Z') }),
        'GA4',
        'z',
      ),
    ).toThrow(/later than/)
  })

  it('defaults to the 28 days ending today', () => {
    expect(resolveDays({}, '2024-05-28')).toEqual({ startDate: '2024-05-01', endDate: '2024-05-28' })
    expect(resolveDays({ endDate: '2024-05-10' }, '2024-05-28')).toEqual({
      startDate: '2024-04-13',
      endDate: '2024-05-10',
    })
  })
})
