import { describe, expect, it } from 'vitest'
import { eventNameFor, eventTypeOf } from './event-types.js'
import {
  HOGQL_CLICK,
  HOGQL_PURCHASE,
  PERSON,
  PROJECT_BASIC,
  PROJECT_DETAIL,
  REST_EVENT,
  SESSION_ROW,
} from './fixtures.js'
import {
  fromPosthogEvent,
  fromPosthogIdentify,
  fromPosthogPerson,
  fromPosthogProject,
  fromPosthogReport,
  fromPosthogSession,
  toPosthogCapture,
  toPosthogIdentify,
  toPosthogPersonProperties,
  toPosthogProject,
} from './mappers.js'

describe('projects', () => {
  it('maps a project detail to a property', () => {
    expect(fromPosthogProject(PROJECT_DETAIL)).toEqual({
      id: '12345',
      created_at: new Date('2024-04-01T12:00:00.123Z'),
      updated_at: new Date('2024-05-01T08:30:00Z'),
      name: 'Acme web',
      timezone: 'Europe/Berlin',
      currency: 'EUR',
      parent_id: '0188f3c4-8f3a-0000-b3a8-2c4f0b7d2a11',
      raw: PROJECT_DETAIL,
    })
  })

  it('leaves out what the list serializer does not carry', () => {
    const property = fromPosthogProject(PROJECT_BASIC)
    expect(property.created_at).toBeUndefined()
    expect(property.currency).toBeUndefined()
    expect(property.id).toBe('12346')
  })

  it('writes only the fields given, with raw for provider-only ones', () => {
    expect(
      toPosthogProject({
        name: 'New',
        currency: 'GBP',
        raw: { product_description: 'docs', name: 'ignored' },
      }),
    ).toEqual({
      product_description: 'docs',
      name: 'New',
      base_currency: 'GBP',
    })
    expect(toPosthogProject({ timezone: 'UTC' })).toEqual({ timezone: 'UTC' })
  })
})

describe('event types (§12.1)', () => {
  it('maps PostHog names and autocapture kinds', () => {
    expect(eventTypeOf('$pageview', undefined)).toBe('PAGE_VIEW')
    expect(eventTypeOf('$screen', undefined)).toBe('SCREEN_VIEW')
    expect(eventTypeOf('$autocapture', 'click')).toBe('CLICK')
    expect(eventTypeOf('$autocapture', 'submit')).toBe('FORM_SUBMIT')
    expect(eventTypeOf('$autocapture', 'change')).toBe('CUSTOM')
    expect(eventTypeOf('$rageclick', undefined)).toBe('CLICK')
    expect(eventTypeOf('order_completed', undefined)).toBe('PURCHASE')
    expect(eventTypeOf('signed_up', undefined)).toBe('SIGN_UP')
    expect(eventTypeOf('$identify', undefined)).toBe('CUSTOM')
    expect(eventTypeOf('$pageleave', undefined)).toBe('CUSTOM')
  })

  it('round-trips every type with a PostHog name', () => {
    for (const type of [
      'PAGE_VIEW',
      'CLICK',
      'FORM_SUBMIT',
      'PURCHASE',
      'LOGIN',
      'SCROLL',
      'FIRST_VISIT',
    ] as const) {
      const named = eventNameFor(type)!
      expect(eventTypeOf(named.event, named.autocaptureType)).toBe(type)
    }
    expect(eventNameFor('CUSTOM')).toBeUndefined()
  })
})

describe('events', () => {
  it('maps a legacy API event, keeping custom properties as metadata objects', () => {
    expect(fromPosthogEvent(REST_EVENT, '12345')).toEqual({
      id: '01791c2e-6f8d-0000-4182-6fc9bb92046e',
      created_at: new Date('2024-05-01T10:00:00.123Z'),
      name: '$pageview',
      event_type: 'PAGE_VIEW',
      visitor_id: 'u_42',
      property_id: '12345',
      session_id: '0190a1b2-0000-7000-8000-000000000001',
      page_url: 'https://acme.com/',
      page_title: 'Acme',
      page_referrer: '$direct',
      device: 'Desktop',
      browser: 'Chrome',
      os: 'Mac OS X',
      country: 'United States',
      country_code: 'US',
      region: 'Texas',
      city: 'Austin',
      value: undefined,
      currency: undefined,
      utm_source: 'newsletter',
      utm_medium: undefined,
      utm_campaign: undefined,
      utm_term: undefined,
      utm_content: undefined,
      metadata: { experiment: { value: 'b' } },
      raw: REST_EVENT,
    })
  })

  it('parses numbers HogQL returns as text, and maps autocapture clicks', () => {
    const purchase = fromPosthogEvent(HOGQL_PURCHASE, '1')
    expect(purchase).toMatchObject({
      id: HOGQL_PURCHASE.uuid,
      event_type: 'PURCHASE',
      value: 19.99,
      currency: 'USD',
    })
    expect(purchase.metadata).toBeUndefined()
    expect(fromPosthogEvent(HOGQL_CLICK, '1')).toMatchObject({
      event_type: 'CLICK',
      page_url: 'https://acme.com/pricing',
    })
  })

  it('builds a capture from a unified event, naming it from its type when no name is given', () => {
    const ids = { uuid: 'u-1', apiKey: 'phc_x', timestamp: '2024-05-01T10:00:00Z', distinctId: 'u_42' }
    expect(
      toPosthogCapture(
        {
          event_type: 'CLICK',
          page_url: 'https://a/',
          value: 5,
          metadata: { plan: { value: 'pro' } },
          raw: { properties: { x: 1 } },
        },
        ids,
      ),
    ).toEqual({
      api_key: 'phc_x',
      event: '$autocapture',
      distinct_id: 'u_42',
      uuid: 'u-1',
      timestamp: '2024-05-01T10:00:00Z',
      properties: { x: 1, plan: 'pro', $current_url: 'https://a/', revenue: 5, $event_type: 'click' },
    })
    expect(toPosthogCapture({ name: 'invite_sent' }, ids)?.event).toBe('invite_sent')
    expect(toPosthogCapture({ event_type: 'CUSTOM' }, ids)).toBeUndefined()
  })
})

describe('sessions', () => {
  it('maps a sessions row, taking the referring domain as source without a campaign', () => {
    expect(fromPosthogSession(SESSION_ROW, '12345')).toEqual({
      id: '0190a1b2-0000-7000-8000-000000000001',
      created_at: new Date('2024-05-01T10:00:00.123Z'),
      property_id: '12345',
      visitor_id: 'u_42',
      start_at: new Date('2024-05-01T10:00:00.123Z'),
      end_at: new Date('2024-05-01T10:05:00Z'),
      duration_seconds: 299,
      landing_page: 'https://acme.com/',
      exit_page: 'https://acme.com/pricing',
      page_views: 2,
      source: 'www.google.com',
      medium: undefined,
      campaign: undefined,
      is_bounce: false,
      raw: SESSION_ROW,
    })
  })

  it('adds the details read from events when they were fetched', () => {
    expect(fromPosthogSession(SESSION_ROW, '1', { browser: 'Chrome', events_count: 4 })).toMatchObject({
      browser: 'Chrome',
      events_count: 4,
    })
  })
})

describe('visitors', () => {
  it("maps a list row, with the person's uuid as id (and as raw.__id, where earlier versions read it)", () => {
    expect(
      fromPosthogPerson(PERSON, '12345', {
        total_sessions: 3,
        total_page_views: 9,
        total_events: 20,
        last_seen_at: new Date('2024-05-01T10:05:00Z'),
      }),
    ).toEqual({
      id: PERSON.uuid,
      created_at: new Date('2024-04-01T12:00:00Z'),
      property_id: '12345',
      email: 'a@b.co',
      name: 'Ann',
      age: 34,
      gender: 'FEMALE',
      country: 'United States',
      country_code: 'US',
      city: 'Austin',
      language: undefined,
      timezone: 'America/Chicago',
      first_seen_at: new Date('2024-04-01T12:00:00Z'),
      last_seen_at: new Date('2024-05-01T10:05:00Z'),
      total_sessions: 3,
      total_page_views: 9,
      total_events: 20,
      metadata: { plan: { value: 'pro' } },
      raw: { ...PERSON, __id: PERSON.uuid },
    })
  })

  it('passes an unknown gender through and has no last_seen_at without the totals', () => {
    const v = fromPosthogPerson({ ...PERSON, properties: { gender: 'agender' } }, '1')
    expect(v.gender).toBe('agender')
    expect(v.last_seen_at).toBeUndefined()
  })

  it('turns a unified visitor into $set properties and an $identify capture', () => {
    const properties = toPosthogPersonProperties({
      email: 'z@y.x',
      country_code: 'DE',
      metadata: { tier: { value: 2 } },
    })
    expect(properties).toEqual({ tier: 2, email: 'z@y.x', $geoip_country_code: 'DE' })
    const identify = toPosthogIdentify(properties, {
      uuid: 'e-1',
      apiKey: 'phc_x',
      timestamp: 't',
      distinctId: 'd-1',
    })
    expect(identify).toEqual({
      api_key: 'phc_x',
      event: '$identify',
      distinct_id: 'd-1',
      uuid: 'e-1',
      timestamp: 't',
      properties: { $set: properties },
    })
    const created = fromPosthogIdentify(identify, '7', '0190a1b2-0000-7000-8000-000000000003')
    expect(created).toMatchObject({
      id: '0190a1b2-0000-7000-8000-000000000003',
      property_id: '7',
      email: 'z@y.x',
      country_code: 'DE',
      metadata: { tier: { value: 2 } },
    })
    expect(created.raw).not.toHaveProperty('api_key')
  })
})

describe('reports (§12.2, §12.3)', () => {
  it('gives a DATE bucket its own day as range', () => {
    const report = fromPosthogReport({
      propertyId: '1',
      metrics: [
        { type: 'SESSIONS', value: 12 },
        { type: 'BOUNCE_RATE', value: null },
      ],
      dimension: 'DATE',
      dimensionValue: '2024-05-01',
      timeZone: 'UTC',
      raw: {},
    })
    expect(report).toEqual({
      property_id: '1',
      start_at: new Date('2024-05-01T00:00:00Z'),
      end_at: new Date('2024-05-02T00:00:00Z'),
      metrics: [
        // A rate of no sessions is null at PostHog: left out, not a metric without a value.
        { type: 'SESSIONS', value: 12, dimension: 'DATE', dimension_value: '2024-05-01' },
      ],
      raw: {},
    })
  })

  it('keeps the requested range without a time dimension', () => {
    const start = new Date('2024-05-01T00:00:00Z')
    const report = fromPosthogReport({
      propertyId: '1',
      metrics: [{ type: 'EVENTS', value: '42' }],
      start,
      timeZone: 'UTC',
      raw: {},
    })
    expect(report.start_at).toBe(start)
    expect(report.metrics).toEqual([{ type: 'EVENTS', value: 42 }])
  })

  const dateBucket = (value: string, timeZone: string, range: { start?: Date; end?: Date } = {}) =>
    fromPosthogReport({
      propertyId: '2',
      metrics: [{ type: 'EVENTS', value: 1 }],
      dimension: 'DATE',
      dimensionValue: value,
      timeZone,
      ...range,
      raw: {},
    })

  it("labels a DATE bucket with the instants of the project's local day, not a UTC day", () => {
    const r = dateBucket('2024-12-20', 'America/New_York')
    expect(r.start_at).toEqual(new Date('2024-12-20T05:00:00Z'))
    expect(r.end_at).toEqual(new Date('2024-12-21T05:00:00Z'))
    expect((r.metrics as { dimension_value: string }[])[0]?.dimension_value).toBe('2024-12-20')
    const berlin = dateBucket('2024-07-01', 'Europe/Berlin')
    expect(berlin.start_at).toEqual(new Date('2024-06-30T22:00:00Z'))
  })

  it('keeps an HOUR value that does not read as an instant as PostHog gave it', () => {
    const r = fromPosthogReport({
      propertyId: '2',
      metrics: [{ type: 'EVENTS', value: 1 }],
      dimension: 'HOUR',
      dimensionValue: 'not a time',
      timeZone: 'UTC',
      raw: {},
    })
    expect((r.metrics as { dimension_value?: string }[])[0]?.dimension_value).toBe('not a time')
  })

  it('makes a local day 23 or 25 hours long when daylight saving changes', () => {
    const spring = dateBucket('2024-03-10', 'America/New_York')
    expect(spring.start_at).toEqual(new Date('2024-03-10T05:00:00Z'))
    expect(spring.end_at).toEqual(new Date('2024-03-11T04:00:00Z'))
    const fall = dateBucket('2024-11-03', 'America/New_York')
    expect((fall.end_at as Date).getTime() - (fall.start_at as Date).getTime()).toBe(25 * 3_600_000)
  })

  it('clips the first and last buckets to the requested range', () => {
    const r = dateBucket('2024-12-20', 'America/New_York', {
      start: new Date('2024-12-20T12:00:00Z'),
      end: new Date('2024-12-21T00:00:00Z'),
    })
    expect(r.start_at).toEqual(new Date('2024-12-20T12:00:00Z'))
    expect(r.end_at).toEqual(new Date('2024-12-21T00:00:00Z'))
  })

  it('reads an HOUR value with its offset, or as wall time of the zone without one', () => {
    const hour = (value: string) =>
      fromPosthogReport({
        propertyId: '2',
        metrics: [{ type: 'EVENTS', value: 1 }],
        dimension: 'HOUR',
        dimensionValue: value,
        timeZone: 'Asia/Kolkata',
        raw: {},
      })
    const withOffset = hour('2024-12-20T10:00:00+05:30')
    expect(withOffset.start_at).toEqual(new Date('2024-12-20T04:30:00Z'))
    expect(withOffset.end_at).toEqual(new Date('2024-12-20T05:30:00Z'))
    expect((withOffset.metrics as { dimension_value: string }[])[0]?.dimension_value).toBe('2024-12-20T10:00')
    expect(hour('2024-12-20 10:00:00').start_at).toEqual(new Date('2024-12-20T04:30:00Z'))
  })
})
