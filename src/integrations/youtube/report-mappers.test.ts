import { describe, expect, it } from 'vitest'
import type { YoutubeResultTable } from './provider-types.js'
import { fromYoutubeReportRows, toYoutubeDimension, toYoutubeMetrics, youtubeSort } from './report-mappers.js'

/** As `GET /v2/reports?…&dimensions=day` answers (providers.md 8.3): rows are arrays, metrics numbers. */
const BY_DAY: YoutubeResultTable = {
  kind: 'youtubeAnalytics#resultTable',
  columnHeaders: [
    { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' },
    { name: 'views', columnType: 'METRIC', dataType: 'INTEGER' },
    { name: 'estimatedMinutesWatched', columnType: 'METRIC', dataType: 'INTEGER' },
  ],
  rows: [
    ['2024-05-01', 1234, 4321],
    ['2024-05-02', 1100, 3900],
  ],
}
const iso = (v: unknown) => (v as Date).toISOString()
const ctx = {
  propertyId: 'UCabc123abc123abc123abc1',
  startDate: '2024-05-01',
  endDate: '2024-05-02',
  types: ['VIDEO_VIEWS', 'WATCH_TIME'],
}

describe('fromYoutubeReportRows', () => {
  it('makes one report per Pacific-Time day', () => {
    const [first] = fromYoutubeReportRows(BY_DAY, { ...ctx, dimension: 'DATE' })
    expect(first?.metrics).toEqual([
      { type: 'VIDEO_VIEWS', value: 1234, dimension: 'DATE', dimension_value: '2024-05-01' },
      { type: 'WATCH_TIME', value: 4321, dimension: 'DATE', dimension_value: '2024-05-01' },
    ])
    expect(iso(first?.start_at)).toBe('2024-05-01T07:00:00.000Z')
    expect(iso(first?.end_at)).toBe('2024-05-02T07:00:00.000Z')
    expect(first?.raw).toEqual({ columnHeaders: BY_DAY.columnHeaders, row: ['2024-05-01', 1234, 4321] })
  })

  it('starts a winter day at Pacific midnight too, 08:00 UTC', () => {
    // "a unique 24-hour period beginning at 12:00 a.m. Pacific time (UTC-8)"
    // (https://developers.google.com/youtube/reporting/v1/reports/dimensions, `date`).
    const [day] = fromYoutubeReportRows(
      { columnHeaders: BY_DAY.columnHeaders, rows: [['2024-01-15', 5, 6]] },
      { ...ctx, startDate: '2024-01-15', endDate: '2024-01-15', dimension: 'DATE' },
    )
    expect(iso(day?.start_at)).toBe('2024-01-15T08:00:00.000Z')
    expect(iso(day?.end_at)).toBe('2024-01-16T08:00:00.000Z')
  })

  it('covers the range for totals and answers nothing when rows are absent', () => {
    const [total] = fromYoutubeReportRows(
      { columnHeaders: BY_DAY.columnHeaders?.slice(1), rows: [[10, 20]] },
      ctx,
    )
    expect(total?.metrics).toEqual([
      { type: 'VIDEO_VIEWS', value: 10 },
      { type: 'WATCH_TIME', value: 20 },
    ])
    expect(iso(total?.end_at)).toBe('2024-05-03T07:00:00.000Z')
    expect(fromYoutubeReportRows({ columnHeaders: BY_DAY.columnHeaders }, ctx)).toEqual([])
  })
})

describe('YouTube report names', () => {
  it('picks the metrics a dimension allows by default, without revenue', () => {
    expect(toYoutubeMetrics(undefined, 'DEVICE_TYPE').map((m) => m.name)).toEqual([
      'views',
      'estimatedMinutesWatched',
    ])
    expect(toYoutubeMetrics(undefined, undefined).map((m) => m.type)).not.toContain('REVENUE')
  })

  it('refuses with 501 what YouTube has no metric for, or cannot break down so', () => {
    expect(() => toYoutubeMetrics(new Set(['SESSIONS']), undefined)).toThrow(
      expect.objectContaining({ statusCode: 501 }),
    )
    expect(() => toYoutubeMetrics(new Set(['LIKES']), 'DEVICE_TYPE')).toThrow(
      /cannot report LIKES by DEVICE_TYPE/,
    )
    expect(() => toYoutubeDimension('BROWSER')).toThrow(expect.objectContaining({ statusCode: 501 }))
  })

  it('sorts time series by time and breakdowns by their first metric, descending', () => {
    expect(youtubeSort('day', 'views')).toBe('day')
    expect(youtubeSort('video', 'views')).toBe('-views')
    expect(youtubeSort(undefined, 'views')).toBeUndefined()
  })
})
