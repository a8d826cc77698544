import { describe, expect, it } from 'vitest'
import { reportId, withReportIds } from './report-ids.js'

const report = (end: string, type = 'PAGE_VIEWS') => ({
  property_id: 'site1',
  start_at: new Date('2024-05-01T00:00:00Z'),
  end_at: new Date(end),
  metrics: [{ type, dimension: 'DATE', dimension_value: '2024-05-01', value: 3 }],
})

describe('report ids', () => {
  it('are 16 hex digits, the same for the same report even when its default window ends a moment later', () => {
    const id = reportId(report('2024-05-08T10:00:00.123Z'))
    expect(id).toMatch(/^[0-9a-f]{16}$/)
    expect(reportId(report('2024-05-08T10:00:05.456Z'))).toBe(id)
  })

  it('differ by property, window, dimension and type', () => {
    const id = reportId(report('2024-05-08T00:00:00Z'))
    expect(reportId(report('2024-05-08T00:00:00Z', 'SESSIONS'))).not.toBe(id)
    expect(reportId(report('2024-05-09T00:00:00Z'))).not.toBe(id)
    expect(reportId({ ...report('2024-05-08T00:00:00Z'), property_id: 'site2' })).not.toBe(id)
    expect(reportId(report('2024-05-08T00:00:00Z'), { start_gte: '2024-05-01T00:00:00.000Z' })).not.toBe(id)
    const byCountry = {
      ...report('2024-05-08T00:00:00Z'),
      metrics: [{ type: 'PAGE_VIEWS', dimension: 'COUNTRY' }],
    }
    expect(reportId(byCountry)).not.toBe(id)
  })

  it('differ by dimension value, so a breakdown row has the same id on every page', () => {
    const row = (country: string) => ({
      ...report('2024-05-08T00:00:00Z'),
      metrics: [{ type: 'PAGE_VIEWS', dimension: 'COUNTRY', dimension_value: country, value: 1 }],
    })
    const whole = withReportIds([row('FR'), row('DE')]).map((r) => r.id)
    expect(new Set(whole).size).toBe(2)
    // The second row read alone (offset 1) keeps the id it had in the whole list.
    expect(withReportIds([row('DE')])[0]?.id).toBe(whole[1])
  })

  it('number reports of the same key in list order and keep ids a provider gave', () => {
    const same = report('2024-05-08T00:00:00Z')
    const ids = withReportIds([same, same, { ...same, id: 'given' }]).map((r) => r.id)
    expect(ids).toEqual([reportId(same), `${reportId(same)}-2`, 'given'])
  })
})
