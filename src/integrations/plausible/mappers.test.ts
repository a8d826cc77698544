import { describe, expect, it } from 'vitest'
import { bucketBounds } from './buckets.js'
import {
  fromPlausibleEventSent,
  fromPlausibleQuery,
  fromPlausibleSite,
  toPlausibleEvent,
  toPlausibleSiteCreate,
  toPlausibleSiteUpdate,
} from './mappers.js'
import type { PlausibleQueryResult } from './types.js'

// Shaped like plausible/docs sites-api.md and stats-api.md examples (providers.md 5.3).
const site = {
  domain: 'acme.com',
  timezone: 'Europe/London',
  custom_properties: ['logged_in'],
  tracker_script_configuration: { id: 'pa-1iQepzD1J73BaHey2csUp', outbound_links: false },
}

describe('Plausible sites', () => {
  it('map with the domain as id and name', () => {
    expect(fromPlausibleSite(site, 'team-1')).toEqual({
      id: 'acme.com',
      name: 'acme.com',
      timezone: 'Europe/London',
      parent_id: 'team-1',
      raw: site,
    })
  })

  it('are created from name, timezone and team, updated by domain only', () => {
    expect(
      toPlausibleSiteCreate({ name: 'shop.acme.com', timezone: 'Europe/Berlin', parent_id: 't' }),
    ).toEqual({
      domain: 'shop.acme.com',
      timezone: 'Europe/Berlin',
      team_id: 't',
    })
    expect(() => toPlausibleSiteCreate({ timezone: 'UTC' })).toThrow(/domain as name/)
    expect(() => toPlausibleSiteCreate({ name: 'a.com', currency: 'EUR' })).toThrow(/currency/)
    expect(toPlausibleSiteUpdate({ name: 'new.acme.com' })).toEqual({ domain: 'new.acme.com' })
    expect(() => toPlausibleSiteUpdate({ timezone: 'UTC' })).toThrow(/timezone/)
  })
})

describe('Plausible events', () => {
  it('send a custom event with props, utm in the URL and revenue', () => {
    expect(
      toPlausibleEvent({
        name: 'Signup',
        property_id: 'acme.com',
        page_url: 'https://acme.com/register',
        page_referrer: 'https://google.com/',
        utm_campaign: 'spring',
        metadata: { plan: { tier: 'pro' } },
        value: 20,
        currency: 'EUR',
      }),
    ).toEqual({
      domain: 'acme.com',
      name: 'Signup',
      url: 'https://acme.com/register?utm_campaign=spring',
      referrer: 'https://google.com/',
      props: { plan: '{"tier":"pro"}' },
      revenue: { currency: 'EUR', amount: 20 },
    })
  })

  it('name pageviews and built-in goals, and refuse what Plausible derives itself', () => {
    expect(
      toPlausibleEvent({ event_type: 'PAGE_VIEW', property_id: 'a.com', page_url: 'https://a.com/' }),
    ).toEqual({
      domain: 'a.com',
      name: 'pageview',
      url: 'https://a.com/',
    })
    expect(
      toPlausibleEvent({ event_type: 'FILE_DOWNLOAD', property_id: 'a.com', page_url: 'https://a.com/' })
        .name,
    ).toBe('File Download')
    expect(() => toPlausibleEvent({ name: 'x', property_id: 'a.com', page_url: '/relative' })).toThrow(
      /absolute/,
    )
    expect(() =>
      toPlausibleEvent({ name: 'x', property_id: 'a.com', page_url: 'https://a.com', visitor_id: 'v' }),
    ).toThrow(/visitor_id/)
    expect(() =>
      toPlausibleEvent({ name: 'x', property_id: 'a.com', page_url: 'https://a.com', value: 3 }),
    ).toThrow(/currency/)
    // Plausible would keep 30 props and ignore revenue in an unknown currency, both silently.
    const many = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`p${i}`, { value: i }]))
    expect(() =>
      toPlausibleEvent({ name: 'x', property_id: 'a.com', page_url: 'https://a.com', metadata: many }),
    ).toThrow(/30 properties/)
    expect(() =>
      toPlausibleEvent({
        name: 'x',
        property_id: 'a.com',
        page_url: 'https://a.com',
        value: 3,
        currency: 'euro',
      }),
    ).toThrow(/ISO 4217/)
  })

  it('answer the recorded event with our id', () => {
    const sent = toPlausibleEvent({
      event_type: 'CLICK',
      property_id: 'a.com',
      page_url: 'https://a.com/?utm_source=x',
    })
    const e = fromPlausibleEventSent('id-1', {}, sent, new Date(0))
    expect(e).toMatchObject({
      id: 'id-1',
      name: 'Outbound Link: Click',
      event_type: 'CLICK',
      utm_source: 'x',
    })
  })
})

describe('Plausible reports', () => {
  const result: PlausibleQueryResult = {
    results: [
      { dimensions: ['US'], metrics: [99, 120, 45.5, 62, null, { value: 12.5, currency: 'EUR' }] },
      { dimensions: ['DE'], metrics: [12, 15, 40, 30, 2.5, null] },
    ],
    meta: { total_rows: 2 },
    query: {
      site_id: 'acme.com',
      metrics: ['visitors', 'visits', 'bounce_rate', 'visit_duration', 'scroll_depth', 'total_revenue'],
      dimensions: ['visit:country'],
      date_range: ['2024-05-01T00:00:00+00:00', '2024-05-07T23:59:59+00:00'],
    },
  }

  it('give one report per row, metrics paired by position, percentages as fractions', () => {
    const start = new Date('2024-05-01T00:00:00Z')
    const end = new Date('2024-05-08T00:00:00Z')
    const [us, de] = fromPlausibleQuery(result, 'acme.com', start, end, 'COUNTRY')
    expect(us).toMatchObject({ property_id: 'acme.com', start_at: start, end_at: end })
    expect(us?.metrics).toEqual([
      { type: 'USERS', value: 99, dimension: 'COUNTRY', dimension_value: 'US' },
      { type: 'SESSIONS', value: 120, dimension: 'COUNTRY', dimension_value: 'US' },
      { type: 'BOUNCE_RATE', value: 0.455, dimension: 'COUNTRY', dimension_value: 'US' },
      { type: 'AVERAGE_SESSION_DURATION', value: 62, dimension: 'COUNTRY', dimension_value: 'US' },
      { type: 'REVENUE', value: 12.5, dimension: 'COUNTRY', dimension_value: 'US' },
    ])
    // scroll_depth has no unified name: it is only in raw.
    expect(de?.raw).toMatchObject({
      metrics: [12, 15, 40, 30, 2.5, null],
      metric_names: result.query.metrics,
    })
  })

  it('give time buckets their own instants, by the echoed offset when the zone is unknown', () => {
    const daily: PlausibleQueryResult = {
      results: [
        { dimensions: ['2024-05-10'], metrics: [3] },
        { dimensions: ['2024-05-11'], metrics: [4] },
      ],
      meta: {},
      query: {
        site_id: 'acme.com',
        metrics: ['visits'],
        dimensions: ['time:day'],
        date_range: ['2024-05-10T02:00:00+02:00', '2024-05-11T23:59:59+02:00'],
      },
    }
    const start = new Date('2024-05-10T00:00:00Z')
    const end = new Date('2024-05-12T00:00:00Z')
    const rows = fromPlausibleQuery(daily, 'acme.com', start, end, 'DATE')
    expect(rows.map((r) => [(r.start_at as Date).toISOString(), (r.end_at as Date).toISOString()])).toEqual([
      ['2024-05-10T00:00:00.000Z', '2024-05-10T22:00:00.000Z'],
      ['2024-05-10T22:00:00.000Z', '2024-05-11T22:00:00.000Z'],
    ])
    // With the zone's name, DST is followed: Berlin's 2024-10-27 lasts 25 hours.
    const [autumn] = fromPlausibleQuery(
      { ...daily, results: [{ dimensions: ['2024-10-27'], metrics: [1] }] },
      'acme.com',
      new Date('2024-10-01T00:00:00Z'),
      new Date('2024-11-01T00:00:00Z'),
      'DATE',
      'Europe/Berlin',
    )
    expect([autumn?.start_at, autumn?.end_at].map((d) => (d as Date).toISOString())).toEqual([
      '2024-10-26T22:00:00.000Z',
      '2024-10-27T23:00:00.000Z',
    ])
  })

  it("label time buckets in the one form of time labels, Plausible's local hour and month included", () => {
    const query = {
      site_id: 'acme.com',
      metrics: ['visits'],
      date_range: ['2024-05-10T02:00:00+02:00', '2024-06-12T01:59:59+02:00'] as [string, string],
    }
    const labels = (dimension: string, plausible: string, values: string[]) =>
      fromPlausibleQuery(
        {
          results: values.map((v) => ({ dimensions: [v], metrics: [1] })),
          meta: {},
          query: { ...query, dimensions: [plausible] },
        },
        'acme.com',
        new Date('2024-05-10T00:00:00Z'),
        new Date('2024-06-12T00:00:00Z'),
        dimension,
        'Europe/Berlin',
      ).map((r) => (r.metrics as { dimension_value: string }[])[0]?.dimension_value)
    expect(labels('HOUR', 'time:hour', ['2024-05-10 02:00:00', '2024-05-10 13:00:00'])).toEqual([
      '2024-05-10T02:00',
      '2024-05-10T13:00',
    ])
    expect(labels('MONTH', 'time:month', ['2024-05-01', '2024-06-01'])).toEqual(['2024-05', '2024-06'])
    // 2024-05-10 is a Friday: the window's first day labels the week begun on Monday the 6th.
    expect(labels('WEEK', 'time:week', ['2024-05-06', '2024-05-13'])).toEqual(['2024-05-10', '2024-05-13'])
    expect(labels('DATE', 'time:day', ['2024-05-10'])).toEqual(['2024-05-10'])
  })
})

describe('Plausible hour buckets', () => {
  it('give the hour the clocks repeat in autumn, one label counting both, two hours', () => {
    const hour = (label: string) => bucketBounds('time:hour', label, 'America/New_York')
    // 01:00 EDT is 05:00Z, the repeated 01:00 EST ends at 02:00 EST, 07:00Z.
    expect(hour('2024-11-03 01:00:00')).toEqual({
      start: Date.parse('2024-11-03T05:00:00Z'),
      end: Date.parse('2024-11-03T07:00:00Z'),
    })
    expect(hour('2024-11-03 02:00:00')).toEqual({
      start: Date.parse('2024-11-03T07:00:00Z'),
      end: Date.parse('2024-11-03T08:00:00Z'),
    })
    // 2024-03-10: 02:00 does not happen; 01:00 EST (06:00Z) lasts an hour.
    expect(hour('2024-03-10 01:00:00')).toEqual({
      start: Date.parse('2024-03-10T06:00:00Z'),
      end: Date.parse('2024-03-10T07:00:00Z'),
    })
  })
})
