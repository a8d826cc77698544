import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { exportHour } from './event.js'
import { eventsOfExportArchive } from './export-archive.js'
import { amplitudeHosts } from './hosts.js'
import {
  countryCodeOf,
  fromAmplitudeEvent,
  fromAmplitudeUser,
  toAmplitudeEvent,
  toAmplitudeUserProperties,
} from './mappers.js'
import { fromAmplitudeSeries } from './report.js'
import { deletionOutcome } from './visitor.js'
import { readZip, ZipError } from './zip.js'

// A zip written by Python's zipfile: one stored and one deflated `.json.gz` entry, as the export sends.
const archive = Buffer.from(
  readFileSync(new URL('./fixtures/export.zip.b64', import.meta.url), 'utf8'),
  'base64',
)

describe('Amplitude export archive', () => {
  it('reads stored and deflated zip entries of gzipped JSON lines', async () => {
    expect((await readZip(archive)).map((e) => e.name)).toEqual([
      '987654/987654_2024-05-01_10#0.json.gz',
      '987654/987654_2024-05-01_11#0.json.gz',
    ])
    expect((await eventsOfExportArchive(archive)).map((e) => e.event_type)).toEqual([
      '[Amplitude] Page Viewed',
      'purchase',
    ])
  })

  it('refuses what is not a zip', async () => {
    await expect(readZip(Buffer.from('{"error":"nope"}'))).rejects.toThrow(ZipError)
  })

  it('formats export hours', () => {
    expect(exportHour(Date.UTC(2024, 4, 1, 9, 59))).toBe('20240501T09')
  })
})

const [page, purchase] = (await eventsOfExportArchive(archive)).map(fromAmplitudeEvent)

describe('Amplitude mappers', () => {
  it('maps a web page view', () => {
    expect(page).toMatchObject({
      id: 'e1f00000-0000-4000-8000-000000000001',
      name: '[Amplitude] Page Viewed',
      event_type: 'PAGE_VIEW',
      property_id: '987654',
      visitor_id: 'u_42',
      session_id: '1714557600000',
      page_url: 'https://acme.com/pricing',
      page_title: 'Pricing',
      page_referrer: 'https://google.com/',
      browser: 'Chrome',
      device: 'Mac',
      country: 'United States',
      country_code: 'US',
      utm_source: 'newsletter',
      metadata: { '[Amplitude] Page Path': { value: '/pricing' } },
    })
    expect(page?.os).toBeUndefined()
    expect((page!.created_at as Date).toISOString()).toBe('2024-05-01T10:00:00.123Z')
    // Uploaded at 10:00:01: exported from 13:00, the time it became readable.
    expect((page!.updated_at as Date).toISOString()).toBe('2024-05-01T13:00:00.000Z')
  })

  it('maps a purchase without user id or session: revenue from $-event properties, device visitor id', () => {
    expect(purchase).toMatchObject({
      id: 'f6c0a8e2-0000-4000-8000-000000000002',
      event_type: 'PURCHASE',
      visitor_id: 'device:d-xyz',
      os: 'ios',
      country_code: 'DE',
      value: 9.99,
      currency: 'EUR',
      metadata: { sku: { value: 'A1' }, $productId: { value: 'A1' } },
    })
    expect(purchase?.session_id).toBeUndefined()
    expect(purchase?.browser).toBeUndefined()
  })

  it('reads revenue as $price × $quantity when no $revenue was stored, and never from the top level', () => {
    const base = { event_type: 'Order', user_id: 'u1', event_time: '2024-05-01 11:00:00.000000' }
    expect(fromAmplitudeEvent({ ...base, event_properties: { $price: 4, $quantity: 3 } })).toMatchObject({
      value: 12,
      event_type: 'PURCHASE',
    })
    const topLevel = fromAmplitudeEvent({ ...base, revenue: 5, currency: 'USD', event_properties: {} })
    expect(topLevel).toMatchObject({ event_type: 'CUSTOM' })
    expect(topLevel.value).toBeUndefined()
    expect(topLevel.currency).toBeUndefined()
  })

  it('sends a device visitor as device_id', () => {
    const e = toAmplitudeEvent('id-2', 'x', { visitor_id: 'device:d-xyz' }, new Date(0))
    expect(e).toMatchObject({ device_id: 'd-xyz' })
    expect(e).not.toHaveProperty('user_id')
  })

  it('builds an HTTP V2 event with our insert_id', () => {
    expect(
      toAmplitudeEvent(
        'id-1',
        'purchase',
        {
          visitor_id: 'u1',
          value: 3,
          session_id: '1714557600000',
          page_url: 'https://a.io',
          created_at: '2024-05-01T00:00:00Z',
          metadata: { sku: { value: 'A1' } },
        },
        new Date(),
      ),
    ).toEqual({
      user_id: 'u1',
      event_type: 'purchase',
      time: 1714521600000,
      insert_id: 'id-1',
      session_id: 1714557600000,
      revenue: 3,
      event_properties: { sku: 'A1', '[Amplitude] Page URL': 'https://a.io' },
    })
  })

  it('maps user activity data', () => {
    const v = fromAmplitudeUser('u_42', {
      user_id: 'u_42',
      canonical_amplitude_id: 123456789,
      num_events: 142,
      num_sessions: 23,
      first_used: '2024-03-14',
      last_used: '2024-05-01',
      country: 'United States',
      city: 'Austin',
      language: 'English',
      properties: { email: 'a@b.co', plan: 'pro' },
    })
    expect(v).toMatchObject({
      id: 'u_42',
      email: 'a@b.co',
      total_events: 142,
      total_sessions: 23,
      country_code: 'US',
      metadata: { plan: { value: 'pro' } },
    })
    expect((v.first_seen_at as Date).toISOString()).toBe('2024-03-14T00:00:00.000Z')
    expect(toAmplitudeUserProperties({ email: 'x@y.z', metadata: { plan: { value: 'team' } } })).toEqual({
      plan: 'team',
      email: 'x@y.z',
    })
  })

  it('knows country codes by English name', () => {
    expect(countryCodeOf('Germany')).toBe('DE')
    expect(countryCodeOf('Atlantis')).toBeUndefined()
  })

  it('maps Dashboard REST series, by date and grouped', () => {
    const answer = {
      data: {
        series: [
          [1200, 1300],
          [800, 900],
        ],
        seriesLabels: ['United States', 'Germany'],
        seriesCollapsed: [[{ value: 2100 }], [{ value: 1500 }]],
        xValues: ['2024-05-01', '2024-05-02'],
      },
    }
    expect(fromAmplitudeSeries(answer, 'USERS', 'COUNTRY', true)).toEqual([
      { value: 2100, type: 'USERS', dimension: 'COUNTRY', dimension_value: 'United States' },
      { value: 1500, type: 'USERS', dimension: 'COUNTRY', dimension_value: 'Germany' },
    ])
    expect(fromAmplitudeSeries(answer, 'USERS', 'DATE', false)).toEqual([
      { value: 1200, type: 'USERS', dimension: 'DATE', dimension_value: '2024-05-01' },
      { value: 1300, type: 'USERS', dimension: 'DATE', dimension_value: '2024-05-02' },
    ])
  })

  it('labels hours, weeks and months of a series in the one form of time labels', () => {
    const series = (xValues: string[]) => ({ data: { series: [xValues.map(() => 1)], xValues } })
    const labels = (dimension: string, xValues: string[]) =>
      fromAmplitudeSeries(series(xValues), 'EVENTS', dimension, false, '2024-05-01').map(
        (m) => m.dimension_value,
      )
    expect(labels('HOUR', ['2024-05-01T00:00', '2024-05-01T13:00:00'])).toEqual([
      '2024-05-01T00:00',
      '2024-05-01T13:00',
    ])
    expect(labels('MONTH', ['2024-05-01', '2024-06-01'])).toEqual(['2024-05', '2024-06'])
    // A week bucket labelled before the window (2024-04-28, whatever day Amplitude starts its weeks on:
    // its docs give xValues only as dates) counts from the window's first day, so it is labelled by that day.
    expect(labels('WEEK', ['2024-04-28', '2024-05-05'])).toEqual(['2024-05-01', '2024-05-05'])
  })

  it('chooses hosts per region', () => {
    expect(amplitudeHosts({ region: 'eu' })).toEqual({
      analytics: 'https://analytics.eu.amplitude.com',
      ingest: 'https://api.eu.amplitude.com',
    })
    expect(amplitudeHosts({}).ingest).toBe('https://api2.amplitude.com')
  })
})

describe('Amplitude deletion answers', () => {
  it('reads one job or a list of them, with ids as objects or numbers', () => {
    const job = {
      day: '2024-06-01',
      status: 'staging',
      amplitude_ids: [{ amplitude_id: 7, requester: 'unigate' }],
    }
    expect(deletionOutcome([job], 7)).toBe('scheduled')
    expect(deletionOutcome(job, 7)).toBe('scheduled')
    expect(deletionOutcome({ ...job, amplitude_ids: [7] }, 7)).toBe('scheduled')
    expect(deletionOutcome([{ ...job, amplitude_ids: [], invalid_ids: [7] }], 7)).toBe('invalid')
    expect(deletionOutcome([{ ...job, amplitude_ids: [{ amplitude_id: 8 }] }], 7)).toBe('absent')
    expect(deletionOutcome('ok', 7)).toBe('absent')
  })
})
