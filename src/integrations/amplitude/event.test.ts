import { describe, expect, it } from 'vitest'
import type { ListQuery } from '../types.js'
import { exportWindow } from './event.js'

const HOUR_MS = 3_600_000
const at = (iso: string) => new Date(iso)
const query = (filters: ListQuery['filters'], updatedGte?: Date): ListQuery => ({
  limit: 100,
  offset: 0,
  filters,
  ...(updatedGte ? { updated_gte: updatedGte } : {}),
})
/** Half past noon: the window's last hour is 12:00 UTC. */
const NOW = Date.parse('2026-06-15T12:30:00Z')

describe('the Amplitude export window a list reads', () => {
  it('reads at most 365 days of upload hours, and names the earliest start_gte that fits', () => {
    // 14:00 a year before, less the hour of clock skew: upload hours 13:00 a year before to 12:00 today.
    const fits = exportWindow(query({ start_gte: at('2025-06-15T14:00:00Z') }), NOW)
    expect(fits).toEqual({ from: Date.parse('2025-06-15T13:00:00Z'), to: Date.parse('2026-06-15T12:00:00Z') })
    expect(((fits?.to ?? 0) - (fits?.from ?? 0)) / HOUR_MS + 1).toBe(365 * 24)
    expect(() => exportWindow(query({ start_gte: at('2025-06-15T13:59:59.999Z') }), NOW)).toThrow(
      'start_gte: Amplitude exports at most 365 days at once, and this list reads the uploads from start_gte ' +
        'to now; give a start_gte at or after 2025-06-15T14:00:00.000Z, or an end_lt',
    )
  })

  it('names updated_gte when it starts the window, and end_lt when it ends it', () => {
    const old = at('2020-01-01T00:00:00Z')
    // updated_at is 3 hours after the upload hour starts: updated_gte 16:00 reads from 13:00.
    expect(exportWindow(query({ start_gte: old }, at('2025-06-15T16:00:00Z')), NOW)?.from).toBe(
      Date.parse('2025-06-15T13:00:00Z'),
    )
    expect(() => exportWindow(query({ start_gte: old }, at('2025-06-15T15:59:59Z')), NOW)).toThrow(
      'give an updated_gte at or after 2025-06-15T16:00:00.000Z, or an end_lt',
    )
    // A past window ends 7 days after end_lt (late uploads): 365 days of hours back from there.
    const end = at('2025-01-01T00:00:00Z')
    expect(exportWindow(query({ start_gte: at('2024-01-09T02:00:00Z'), end_lt: end }), NOW)).toBeDefined()
    expect(() => exportWindow(query({ start_gte: at('2024-01-09T01:00:00Z'), end_lt: end }), NOW)).toThrow(
      'from start_gte to end_lt plus 7 days of late uploads; give a start_gte at or after ' +
        '2024-01-09T02:00:00.000Z, or an earlier end_lt',
    )
  })
})
