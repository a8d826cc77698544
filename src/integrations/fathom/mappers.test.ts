import { describe, expect, it } from 'vitest'
import { formatFathomTime, fromFathomRow, fromFathomSite, parseFathomTime, toFathomSite } from './mappers.js'
import type { FathomSite } from './types.js'

// Shaped like usefathom.com/api/v1/sites and /aggregations examples (providers.md 9).
const site: FathomSite = {
  id: 'CDBUGS',
  object: 'site',
  name: 'Bugs Bunny Portfolio',
  sharing: 'none',
  created_at: '2020-07-27 12:01:01',
  timezone: 'America/New_York',
}

describe('Fathom sites', () => {
  it('map onto properties with UTC creation time', () => {
    expect(fromFathomSite(site)).toEqual({
      id: 'CDBUGS',
      name: 'Bugs Bunny Portfolio',
      timezone: 'America/New_York',
      created_at: new Date('2020-07-27T12:01:01Z'),
      raw: site,
    })
  })

  it('are written from name and raw sharing settings only', () => {
    expect(toFathomSite({ name: 'Acme', raw: { sharing: 'private', share_password: 'pw' } }, true)).toEqual({
      name: 'Acme',
      sharing: 'private',
      share_password: 'pw',
    })
    expect(() => toFathomSite({}, true)).toThrow(/name/)
    expect(() => toFathomSite({ timezone: 'UTC' }, false)).toThrow(/timezone/)
  })

  it('format and read times as Fathom prints them', () => {
    expect(formatFathomTime(Date.parse('2024-05-01T10:00:00.900Z'))).toBe('2024-05-01 10:00:00')
    expect(parseFathomTime('2024-05-01 10:00:00')?.toISOString()).toBe('2024-05-01T10:00:00.000Z')
  })
})

describe('Fathom aggregation rows', () => {
  const start = new Date('2024-05-01T00:00:00Z')
  const end = new Date('2024-05-08T00:00:00Z')

  it('read numbers given as strings and label the dimension', () => {
    const row = {
      visits: '120',
      uniques: '99',
      pageviews: '310',
      avg_duration: '62.5',
      bounce_rate: 0.45,
      date: '2024-05-01',
    }
    const report = fromFathomRow(
      row,
      ['visits', 'uniques', 'pageviews', 'avg_duration', 'bounce_rate'],
      'CDBUGS',
      start,
      end,
      {
        unified: 'DATE',
        key: 'date',
      },
    )
    expect(report).toMatchObject({ property_id: 'CDBUGS', start_at: start, end_at: end, raw: row })
    expect(report.metrics).toEqual([
      { type: 'SESSIONS', value: 120, dimension: 'DATE', dimension_value: '2024-05-01' },
      { type: 'UNIQUE_PAGE_VIEWS', value: 99, dimension: 'DATE', dimension_value: '2024-05-01' },
      { type: 'PAGE_VIEWS', value: 310, dimension: 'DATE', dimension_value: '2024-05-01' },
      { type: 'AVERAGE_SESSION_DURATION', value: 62.5, dimension: 'DATE', dimension_value: '2024-05-01' },
      { type: 'BOUNCE_RATE', value: 0.45, dimension: 'DATE', dimension_value: '2024-05-01' },
    ])
  })

  it('report bounce_rate as the 0-1 fraction Fathom answers, neither scaled up nor down', () => {
    // A live answer recorded in spences10/scottspence.com@1a691ff1 (posts/2023/02/21/adding-real-time-
    // analytics-to-my-sveltekit-site-with-fathom/index.md): 28 bounces in 99 visits is 0.2828..., a number.
    const row = {
      visits: '99',
      uniques: '140',
      pageviews: '681',
      avg_duration: '55.5731',
      bounce_rate: 0.2828282828282828,
      date: '2023',
    }
    const year = [new Date('2023-01-01T00:00:00Z'), new Date('2024-01-01T00:00:00Z')] as const
    const report = fromFathomRow(row, ['visits', 'bounce_rate'], 'CDBUGS', ...year, {
      unified: 'YEAR',
      key: 'date',
      grouping: 'year',
    })
    expect(report).toMatchObject({ start_at: year[0], end_at: year[1] })
    expect(report.metrics).toEqual([
      { type: 'SESSIONS', value: 99, dimension: 'YEAR', dimension_value: '2023' },
      { type: 'BOUNCE_RATE', value: 0.2828282828282828, dimension: 'YEAR', dimension_value: '2023' },
    ])
  })

  it("label an hour's date group in the one form of time labels, and a field group as Fathom gives it", () => {
    const hour = fromFathomRow(
      { visits: '3', date: '2024-05-01 10:00:00' },
      ['visits'],
      'CDBUGS',
      start,
      end,
      {
        unified: 'HOUR',
        key: 'date',
        grouping: 'hour',
      },
    )
    expect(hour.metrics).toEqual([
      { type: 'SESSIONS', value: 3, dimension: 'HOUR', dimension_value: '2024-05-01T10:00' },
    ])
    expect(hour).toMatchObject({
      start_at: new Date('2024-05-01T10:00:00Z'),
      end_at: new Date('2024-05-01T11:00:00Z'),
    })
    const page = fromFathomRow({ visits: '3', pathname: '/2024-05-01' }, ['visits'], 'CDBUGS', start, end, {
      unified: 'PAGE',
      key: 'pathname',
    })
    expect(page.metrics).toEqual([
      { type: 'SESSIONS', value: 3, dimension: 'PAGE', dimension_value: '/2024-05-01' },
    ])
  })

  it('turn event value from cents into currency units', () => {
    const report = fromFathomRow(
      { conversions: '4', value: '1999' },
      ['conversions', 'value'],
      'CDBUGS',
      start,
      end,
    )
    expect(report.metrics).toEqual([
      { type: 'CONVERSIONS', value: 4 },
      { type: 'REVENUE', value: 19.99 },
    ])
  })
})
