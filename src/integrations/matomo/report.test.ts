import { describe, expect, it } from 'vitest'
import { periodLabel, summaryRowIn } from './report.js'

describe('summaryRowIn', () => {
  const rows = [{ label: 'Paris' }, { label: 'Berlin' }]

  it('finds the summary row of a plain report last, by its English label', () => {
    expect(summaryRowIn([...rows, { label: 'Others', nb_visits: 4 }], false)).toEqual({
      label: 'Others',
      nb_visits: 4,
    })
    expect(summaryRowIn([{ label: 'Others' }, ...rows], false)).toBeUndefined()
    expect(summaryRowIn(rows, false)).toBeUndefined()
    expect(summaryRowIn([], false)).toBeUndefined()
  })

  it('finds a flattened summary row anywhere by is_summary, not by label', () => {
    const flagged = { label: 'docs/ - Others', is_summary: true }
    expect(summaryRowIn([rows[0]!, flagged, rows[1]!], true)).toBe(flagged)
    expect(summaryRowIn([...rows, { label: 'Others' }], true)).toBeUndefined()
  })
})

describe('periodLabel', () => {
  it("labels Matomo's period keys in the one form of time labels, a week by its first day", () => {
    expect(periodLabel('DATE', '2024-05-01')).toBe('2024-05-01')
    expect(periodLabel('WEEK', '2024-04-29,2024-05-05')).toBe('2024-04-29')
    expect(periodLabel('MONTH', '2024-05')).toBe('2024-05')
    expect(periodLabel('YEAR', '2024')).toBe('2024')
    expect(periodLabel('COUNTRY', 'FR')).toBe('FR')
  })
})
