import { describe, expect, it } from 'vitest'
import type { Ga4RunReportResponse } from './provider-types.js'
import { fromGa4ReportRows, ga4OrderBys, toGa4Dimension, toGa4Metrics } from './report-mappers.js'

/** As `POST /v1beta/properties/1000:runReport` answers (providers.md 1.3): every value a string. */
const BY_DATE: Ga4RunReportResponse = {
  dimensionHeaders: [{ name: 'date' }],
  metricHeaders: [
    { name: 'activeUsers', type: 'TYPE_INTEGER' },
    { name: 'bounceRate', type: 'TYPE_FLOAT' },
  ],
  rows: [
    { dimensionValues: [{ value: '20240501' }], metricValues: [{ value: '123' }, { value: '0.4512' }] },
    { dimensionValues: [{ value: '20240502' }], metricValues: [{ value: '98' }, { value: '0.5' }] },
  ],
  rowCount: 7,
  metadata: { currencyCode: 'USD', timeZone: 'America/Los_Angeles' },
  kind: 'analyticsData#runReport',
}

/** BY_DATE's answer with one row of one dimension instead of its two dates. */
const oneRow = (dimension: string, value: string): Ga4RunReportResponse => ({
  ...BY_DATE,
  dimensionHeaders: [{ name: dimension }],
  rows: [{ dimensionValues: [{ value }], metricValues: [{ value: '1' }, { value: '0' }] }],
})

/** A mapped date as the API will print it. */
const iso = (value: unknown) => (value as Date).toISOString()

const ctx = {
  propertyId: '1000',
  startDate: '2024-05-01',
  endDate: '2024-05-07',
  timeZone: 'America/Los_Angeles',
  types: ['USERS', 'BOUNCE_RATE'],
}

describe('fromGa4ReportRows', () => {
  it('makes one report per day, bounded by the day in the property time zone', () => {
    const [first, second] = fromGa4ReportRows(BY_DATE, { ...ctx, dimension: 'DATE' })
    expect(first).toMatchObject({
      property_id: '1000',
      metrics: [
        { type: 'USERS', value: 123, dimension: 'DATE', dimension_value: '2024-05-01' },
        { type: 'BOUNCE_RATE', value: 0.4512, dimension: 'DATE', dimension_value: '2024-05-01' },
      ],
    })
    expect(iso(first?.start_at)).toBe('2024-05-01T07:00:00.000Z')
    expect(iso(first?.end_at)).toBe('2024-05-02T07:00:00.000Z')
    expect(second?.id).not.toBe(first?.id)
    expect(first?.raw).toMatchObject({ row: BY_DATE.rows?.[0], rowCount: 7, metadata: BY_DATE.metadata })
  })

  it('bounds ISO-week and year rows by their own Monday-to-Monday and year, in the property zone', () => {
    const byWeek: Ga4RunReportResponse = {
      ...BY_DATE,
      dimensionHeaders: [{ name: 'isoYearIsoWeek' }],
      rows: [
        { dimensionValues: [{ value: '202501' }], metricValues: [{ value: '5' }, { value: '0' }] },
        { dimensionValues: [{ value: '202502' }], metricValues: [{ value: '6' }, { value: '0' }] },
      ],
    }
    const range = { ...ctx, startDate: '2024-12-25', endDate: '2025-01-31' }
    // ISO week 1 of 2025 runs from Monday 2024-12-30; week 2 from 2025-01-06.
    const [w1, w2] = fromGa4ReportRows(byWeek, { ...range, dimension: 'WEEK' })
    expect([iso(w1?.start_at), iso(w1?.end_at)]).toEqual([
      '2024-12-30T08:00:00.000Z',
      '2025-01-06T08:00:00.000Z',
    ])
    expect([iso(w2?.start_at), iso(w2?.end_at)]).toEqual([
      '2025-01-06T08:00:00.000Z',
      '2025-01-13T08:00:00.000Z',
    ])
    expect((w1?.metrics as { dimension_value: string }[] | undefined)?.[0]?.dimension_value).toBe(
      '2024-12-30',
    )
    const byYear: Ga4RunReportResponse = {
      ...BY_DATE,
      dimensionHeaders: [{ name: 'year' }],
      rows: [
        { dimensionValues: [{ value: '2024' }], metricValues: [{ value: '5' }, { value: '0' }] },
        { dimensionValues: [{ value: '2025' }], metricValues: [{ value: '6' }, { value: '0' }] },
      ],
    }
    const [y1, y2] = fromGa4ReportRows(byYear, { ...range, dimension: 'YEAR' })
    // Cut to the range asked where the year runs past it.
    expect([iso(y1?.start_at), iso(y1?.end_at)]).toEqual([
      '2024-12-25T08:00:00.000Z',
      '2025-01-01T08:00:00.000Z',
    ])
    expect([iso(y2?.start_at), iso(y2?.end_at)]).toEqual([
      '2025-01-01T08:00:00.000Z',
      '2025-02-01T08:00:00.000Z',
    ])
  })

  it('covers the whole range for a non-time dimension and for totals', () => {
    const res: Ga4RunReportResponse = {
      ...BY_DATE,
      dimensionHeaders: [{ name: 'country' }],
      rows: [
        { dimensionValues: [{ value: 'United States' }], metricValues: [{ value: '5' }, { value: '0' }] },
      ],
    }
    const [row] = fromGa4ReportRows(res, { ...ctx, dimension: 'COUNTRY' })
    expect(iso(row?.start_at)).toBe('2024-05-01T07:00:00.000Z')
    expect(iso(row?.end_at)).toBe('2024-05-08T07:00:00.000Z')
    expect(row?.metrics).toContainEqual({
      type: 'USERS',
      value: 5,
      dimension: 'COUNTRY',
      dimension_value: 'United States',
    })
    const [total] = fromGa4ReportRows(
      { ...res, dimensionHeaders: [], rows: [{ metricValues: [{ value: '9' }] }] },
      {
        ...ctx,
        types: ['USERS'],
      },
    )
    expect(total?.metrics).toEqual([{ type: 'USERS', value: 9 }])
  })

  it('cuts a month bucket to the requested range', () => {
    const [row] = fromGa4ReportRows(oneRow('yearMonth', '202405'), { ...ctx, dimension: 'MONTH' })
    expect(row?.metrics).toContainEqual(
      expect.objectContaining({ dimension: 'MONTH', dimension_value: '2024-05' }),
    )
    expect(iso(row?.start_at)).toBe('2024-05-01T07:00:00.000Z')
    expect(iso(row?.end_at)).toBe('2024-05-08T07:00:00.000Z')
  })

  it('gives the hour the clocks repeat in autumn, one dateHour row counting both, two hours', () => {
    const hour = (value: string) => {
      const window = { startDate: '2024-03-01', endDate: '2024-11-30' }
      const [row] = fromGa4ReportRows(oneRow('dateHour', value), { ...ctx, ...window, dimension: 'HOUR' })
      return [iso(row?.start_at), iso(row?.end_at)]
    }
    // America/Los_Angeles on 2024-11-03: 01:00 PDT (08:00Z), then 01:00 again in PST, until 02:00 PST (10:00Z).
    expect(hour('2024110301')).toEqual(['2024-11-03T08:00:00.000Z', '2024-11-03T10:00:00.000Z'])
    expect(hour('2024110302')).toEqual(['2024-11-03T10:00:00.000Z', '2024-11-03T11:00:00.000Z'])
    // 2024-03-10: 02:00 does not happen; 01:00 PST (09:00Z) lasts an hour, to 03:00 PDT (10:00Z).
    expect(hour('2024031001')).toEqual(['2024-03-10T09:00:00.000Z', '2024-03-10T10:00:00.000Z'])
  })

  it("labels an hour by the property's wall clock and a week cut by the window by the window's first day", () => {
    const [hour] = fromGa4ReportRows(oneRow('dateHour', '2024050113'), { ...ctx, dimension: 'HOUR' })
    expect((hour?.metrics as { dimension_value: string }[] | undefined)?.[0]?.dimension_value).toBe(
      '2024-05-01T13:00',
    )
    expect(iso(hour?.start_at)).toBe('2024-05-01T20:00:00.000Z')
    const byWeek: Ga4RunReportResponse = {
      ...BY_DATE,
      dimensionHeaders: [{ name: 'isoYearIsoWeek' }],
      rows: [
        // ISO week 18 of 2024 runs from Monday 2024-04-29, before the window's first day (2024-05-01).
        { dimensionValues: [{ value: '202418' }], metricValues: [{ value: '1' }, { value: '0' }] },
        { dimensionValues: [{ value: '202419' }], metricValues: [{ value: '1' }, { value: '0' }] },
      ],
    }
    const weeks = fromGa4ReportRows(byWeek, { ...ctx, dimension: 'WEEK' })
    expect(weeks.map((w) => (w.metrics as { dimension_value: string }[])[0]?.dimension_value)).toEqual([
      '2024-05-01',
      '2024-05-06',
    ])
    expect(iso(weeks[0]?.start_at)).toBe('2024-05-01T07:00:00.000Z')
  })

  it('answers no reports when GA4 leaves rows and rowCount out', () => {
    expect(
      fromGa4ReportRows({ metricHeaders: BY_DATE.metricHeaders, metadata: BY_DATE.metadata }, ctx),
    ).toEqual([])
  })
})

describe('metric and dimension names', () => {
  it('maps unified types and refuses ones GA4 lacks with 501', () => {
    expect(toGa4Metrics(new Set(['USERS', 'REVENUE']))).toEqual([
      { type: 'USERS', name: 'activeUsers' },
      { type: 'REVENUE', name: 'totalRevenue' },
    ])
    expect(() => toGa4Metrics(new Set(['VIDEO_VIEWS']))).toThrow(expect.objectContaining({ statusCode: 501 }))
    expect(toGa4Metrics(undefined)).toHaveLength(10)
  })

  it('maps dimensions and refuses VIDEO with 501', () => {
    expect(toGa4Dimension('DATE')).toBe('date')
    expect(toGa4Dimension(undefined)).toBeUndefined()
    expect(() => toGa4Dimension('VIDEO')).toThrow(expect.objectContaining({ statusCode: 501 }))
  })

  it('orders time buckets chronologically and breakdowns by their first metric', () => {
    expect(ga4OrderBys('date', 'activeUsers')).toEqual([
      { dimension: { dimensionName: 'date', orderType: 'ALPHANUMERIC' }, desc: false },
    ])
    expect(ga4OrderBys('country', 'activeUsers')[0]).toEqual({
      metric: { metricName: 'activeUsers' },
      desc: true,
    })
  })
})
