import { describe, expect, it } from 'vitest'
import { parseExportLines } from './event.js'
import { mixpanelHosts } from './hosts.js'
import {
  fromMixpanelEvent,
  fromMixpanelProfile,
  fromMixpanelProject,
  toMixpanelImportEvent,
  toMixpanelProfileSet,
} from './mappers.js'
import { fromMixpanelSeries } from './report.js'

// The export example of providers.md 3.3, as JSON lines.
const EXPORT = [
  '{"event":"Signed up","properties":{"time":1602611311,"distinct_id":"u_42","$insert_id":"hpuDqcvpltpCjBsebtxwadtEBDnFAdycabFb","mp_processing_time_ms":1602625711874,"$browser":"Chrome","$os":"Mac OS X","$current_url":"https://acme.com/signup","$referrer":"https://google.com/","$city":"Austin","$region":"Texas","mp_country_code":"US","utm_source":"newsletter","plan":"pro"}}',
  '{"event":"$mp_web_page_view","properties":{"time":1602611400000,"distinct_id":"u_42","$insert_id":"jajcebutlt","current_page_title":"Pricing","current_url_path":"/pricing","current_domain":"acme.com"}}',
].join('\n')

describe('Mixpanel mappers', () => {
  it('parses JSON lines, a single line, and nothing', () => {
    expect(parseExportLines(`${EXPORT}\n`)).toHaveLength(2)
    expect(parseExportLines({ event: 'x', properties: {} })).toHaveLength(1)
    expect(parseExportLines(undefined)).toEqual([])
  })

  it('maps exported events, seconds or milliseconds', () => {
    const [signup, page] = parseExportLines(EXPORT).map((e) => fromMixpanelEvent(e, '1234'))
    expect(signup).toMatchObject({
      id: 'hpuDqcvpltpCjBsebtxwadtEBDnFAdycabFb',
      name: 'Signed up',
      event_type: 'CUSTOM',
      property_id: '1234',
      visitor_id: 'u_42',
      page_url: 'https://acme.com/signup',
      page_referrer: 'https://google.com/',
      browser: 'Chrome',
      os: 'Mac OS X',
      country_code: 'US',
      region: 'Texas',
      city: 'Austin',
      utm_source: 'newsletter',
      metadata: { plan: { value: 'pro' } },
    })
    expect((signup!.created_at as Date).toISOString()).toBe('2020-10-13T17:48:31.000Z')
    expect(page).toMatchObject({ event_type: 'PAGE_VIEW', page_title: 'Pricing' })
    expect((page!.created_at as Date).toISOString()).toBe('2020-10-13T17:50:00.000Z')
  })

  it("reads a pre-2023 project's local wall-clock time as the instant it names in the project zone", () => {
    // 2024-05-10 09:30 in Los Angeles (UTC-7 in May), stored as if it were UTC.
    const e = { event: 'x', properties: { time: Date.UTC(2024, 4, 10, 9, 30), distinct_id: 'a' } }
    expect((fromMixpanelEvent(e, '1', 'America/Los_Angeles').created_at as Date).toISOString()).toBe(
      '2024-05-10T16:30:00.000Z',
    )
    expect((fromMixpanelEvent(e, '1').created_at as Date).toISOString()).toBe('2024-05-10T09:30:00.000Z')
  })

  it('gives events without $insert_id a stable id', () => {
    const e = { event: 'x', properties: { time: 1, distinct_id: 'a' } }
    expect(fromMixpanelEvent(e, '1').id).toBe(fromMixpanelEvent({ ...e }, '1').id)
    expect(String(fromMixpanelEvent(e, '1').id)).toMatch(/^mp-[0-9a-f]{32}$/)
  })

  it('builds an import record with our id as $insert_id', () => {
    const r = toMixpanelImportEvent(
      'id-1',
      'Purchase',
      {
        visitor_id: 'u_42',
        value: 5,
        created_at: '2024-05-01T00:00:00Z',
        metadata: { sku: { value: 'A1' } },
        country_code: 'us',
      },
      new Date(),
    )
    expect(r).toEqual({
      event: 'Purchase',
      properties: {
        sku: 'A1',
        mp_country_code: 'US',
        revenue: 5,
        time: 1714521600000,
        distinct_id: 'u_42',
        $insert_id: 'id-1',
      },
    })
  })

  it('maps engage profiles both ways', () => {
    const v = fromMixpanelProfile(
      {
        $distinct_id: 'u_42',
        $properties: {
          $created: '2024-04-01T12:00:00',
          $email: 'a@b.co',
          $first_name: 'Ann',
          $last_name: 'Lee',
          $last_seen: '2024-05-01T10:05:00',
          $mp_first_event_time: '2024-03-02T08:00:00',
          $city: 'Austin',
          $country_code: 'US',
          $timezone: 'America/Chicago',
          plan: 'pro',
        },
      },
      '1234',
    )
    expect(v).toMatchObject({
      id: 'u_42',
      email: 'a@b.co',
      name: 'Ann Lee',
      country_code: 'US',
      timezone: 'America/Chicago',
      metadata: { plan: { value: 'pro' } },
    })
    // `$created` is the sender's own (Mixpanel does not fill it in); First Seen is Mixpanel's first event.
    expect((v.created_at as Date).toISOString()).toBe('2024-04-01T12:00:00.000Z')
    expect((v.first_seen_at as Date).toISOString()).toBe('2024-03-02T08:00:00.000Z')
    // `$last_seen` is "Updated at": when the profile last changed, not when the user was last active.
    expect((v.updated_at as Date).toISOString()).toBe('2024-05-01T10:05:00.000Z')
    expect(v.last_seen_at).toBeUndefined()
    expect(
      toMixpanelProfileSet({ email: 'x@y.z', name: 'X', metadata: { plan: { value: 'team' } } }),
    ).toEqual({
      plan: 'team',
      $email: 'x@y.z',
      $name: 'X',
    })
  })

  it('maps a project', () => {
    expect(
      fromMixpanelProject('1234', { name: 'Acme Web', organization_id: 11, timezone: 'US/Pacific' }),
    ).toMatchObject({
      id: '1234',
      name: 'Acme Web',
      parent_id: '11',
      timezone: 'US/Pacific',
    })
  })

  it('maps segmentation series by date and by property', () => {
    const answer = {
      data: {
        series: ['2024-05-01', '2024-05-02'],
        values: { US: { '2024-05-01': 147, '2024-05-02': 146 }, DE: { '2024-05-01': 3, '2024-05-02': 0 } },
      },
      legend_size: 2,
    }
    expect(fromMixpanelSeries(answer, 'EVENTS', 'DATE', false)).toEqual([
      { value: 150, type: 'EVENTS', dimension: 'DATE', dimension_value: '2024-05-01' },
      { value: 146, type: 'EVENTS', dimension: 'DATE', dimension_value: '2024-05-02' },
    ])
    expect(fromMixpanelSeries(answer, 'EVENTS', 'COUNTRY', true)).toEqual([
      { value: 293, type: 'EVENTS', dimension: 'COUNTRY', dimension_value: 'US' },
      { value: 3, type: 'EVENTS', dimension: 'COUNTRY', dimension_value: 'DE' },
    ])
  })

  it("labels Mixpanel's hour, week and month keys in the one form of time labels", () => {
    const labels = (dimension: string, series: string[]) =>
      fromMixpanelSeries(
        { data: { series, values: { e: Object.fromEntries(series.map((d) => [d, 1])) } } },
        'EVENTS',
        dimension,
        false,
        '2024-05-01',
      ).map((m) => [m.dimension_value, m.value])
    expect(labels('HOUR', ['2024-05-01 00:00:00', '2024-05-01 13:00:00'])).toEqual([
      ['2024-05-01T00:00', 1],
      ['2024-05-01T13:00', 1],
    ])
    // Mixpanel's weeks start on Monday (2024-04-29); the first counts from the window's first day.
    expect(labels('WEEK', ['2024-04-29', '2024-05-06'])).toEqual([
      ['2024-05-01', 1],
      ['2024-05-06', 1],
    ])
    expect(labels('MONTH', ['2024-05-01', '2024-06-01'])).toEqual([
      ['2024-05', 1],
      ['2024-06', 1],
    ])
  })

  it('chooses hosts per residency region', () => {
    expect(mixpanelHosts({ region: 'eu' })).toEqual({
      query: 'https://eu.mixpanel.com',
      ingest: 'https://api-eu.mixpanel.com',
      export: 'https://data-eu.mixpanel.com',
    })
    expect(mixpanelHosts({ region: 'in' }).export).toBe('https://data-in.mixpanel.com')
    expect(mixpanelHosts({}).ingest).toBe('https://api.mixpanel.com')
    expect(mixpanelHosts({ api_url: 'http://127.0.0.1:9/' }).export).toBe('http://127.0.0.1:9')
  })
})
