import { describe, expect, it } from 'vitest'
import { fromGa4Collect, ga4EventNameOf, toGa4Collect } from './event-mappers.js'

const NOW = Date.parse('2024-05-06T12:00:00Z')
const ID = '7d444840-9dc0-11d1-b245-5ffdce74fad2'

describe('toGa4Collect', () => {
  it('builds the Measurement Protocol body with our id as event_id', () => {
    const { payload, eventName } = toGa4Collect(
      {
        event_type: 'PURCHASE',
        visitor_id: '123456.7654321',
        session_id: '1715000000',
        page_url: 'https://acme.com/checkout',
        page_title: 'Checkout',
        value: 9.99,
        currency: 'USD',
        utm_source: 'newsletter',
        metadata: { coupon: { value: 'SPRING' }, ignored: {} },
        created_at: '2024-05-06T11:00:00.000Z',
      },
      ID,
      NOW,
    )
    expect(eventName).toBe('purchase')
    expect(payload).toEqual({
      client_id: '123456.7654321',
      timestamp_micros: Date.parse('2024-05-06T11:00:00Z') * 1000,
      events: [
        {
          name: 'purchase',
          params: {
            session_id: '1715000000',
            page_location: 'https://acme.com/checkout',
            page_title: 'Checkout',
            currency: 'USD',
            source: 'newsletter',
            value: 9.99,
            coupon: 'SPRING',
            engagement_time_msec: 1,
            event_id: ID,
          },
        },
      ],
    })
  })

  it('merges raw top-level fields and raw.params', () => {
    const { payload } = toGa4Collect(
      { name: 'level_up', visitor_id: 'c1', raw: { user_id: 'u_42', params: { level: 3 } } },
      ID,
      NOW,
    )
    expect(payload.user_id).toBe('u_42')
    expect(payload.events[0]?.params).toMatchObject({ level: 3, event_id: ID })
    expect(payload.timestamp_micros).toBeUndefined()
  })

  it('refuses what GA4 would silently drop', () => {
    expect(() => toGa4Collect({ name: 'signup', visitor_id: undefined }, ID, NOW)).toThrow(/visitor_id/)
    expect(() => ga4EventNameOf({ event_type: 'SESSION_START' })).toThrow(/collected by GA4 itself/)
    expect(() => ga4EventNameOf({ name: 'Signed Up' })).toThrow(/not a GA4 name/)
    expect(() => ga4EventNameOf({ name: 'ga_thing' })).toThrow(/reserves/)
    expect(() => ga4EventNameOf({ event_type: 'CUSTOM' })).toThrow(/name is required/)
    expect(() =>
      toGa4Collect({ name: 'x', visitor_id: 'c', created_at: '2024-05-01T00:00:00Z' }, ID, NOW),
    ).toThrow(/72 hours/)
    expect(() =>
      toGa4Collect({ name: 'x', visitor_id: 'c', metadata: { plan: { tier: 'pro', seats: 3 } } }, ID, NOW),
    ).toThrow(/metadata.plan/)
  })
})

describe('fromGa4Collect', () => {
  it('answers the event under our id, with the type GA4 names imply', () => {
    const body = { name: 'sign_up', visitor_id: 'c1' }
    const collect = toGa4Collect(body, ID, NOW)
    expect(fromGa4Collect(body, collect, ID, 'G-ABC123')).toMatchObject({
      id: ID,
      name: 'sign_up',
      event_type: 'SIGN_UP',
      visitor_id: 'c1',
      raw: { measurement_id: 'G-ABC123', client_id: 'c1' },
    })
  })
})
