import { describe, expect, it } from 'vitest'
import {
  fromUmamiEvent,
  fromUmamiSendResponse,
  fromUmamiSession,
  fromUmamiWebsite,
  fromUnifiedSessionId,
  metricsFromUmamiStats,
  sessionFieldsFromUmamiActivity,
  toUmamiSend,
  toUmamiWebsite,
} from './mappers.js'
import { bucketEnd, bucketLabel, parseBucket } from './report-mapping.js'
import type { UmamiActivity, UmamiEvent, UmamiSession, UmamiWebsite } from './types.js'

// Shaped like @umami/api-client 0.81 schemas (providers.md 7.3).
const website: UmamiWebsite = {
  id: '02d89813-7a72-41e1-87f0-8d668f85008b',
  name: 'Acme Web',
  domain: 'acme.com',
  shareId: null,
  teamId: null,
  userId: '41e2b680-648e-4b09-bcd7-3e2b10c06264',
  createdBy: '41e2b680-648e-4b09-bcd7-3e2b10c06264',
  resetAt: null,
  createdAt: '2024-01-02T03:04:05.000Z',
  updatedAt: '2024-05-01T00:00:00.000Z',
  deletedAt: null,
}

const event: UmamiEvent = {
  id: 'b5e3a1c2-0000-4000-8000-000000000001',
  websiteId: website.id,
  sessionId: '9f1c0000-0000-4000-8000-000000000002',
  createdAt: '2024-05-01T10:00:00.123Z',
  urlPath: '/pricing',
  urlQuery: 'utm_source=newsletter&utm_campaign=spring',
  referrerDomain: 'google.com',
  pageTitle: 'Pricing',
  eventType: 1,
  eventName: null,
  hostname: 'acme.com',
  distinctId: null,
}

const session: UmamiSession = {
  id: '9f1c0000-0000-4000-8000-000000000002',
  websiteId: website.id,
  hostname: 'acme.com',
  browser: 'chrome',
  os: 'Mac OS',
  device: 'desktop',
  screen: '1920x1080',
  language: 'en-US',
  country: 'US',
  region: 'US-TX',
  city: 'Austin',
  firstAt: '2024-05-01T10:00:00Z',
  lastAt: '2024-05-01T10:12:00Z',
  visits: 1,
  views: 5,
  events: 2,
  createdAt: '2024-05-01T10:00:00Z',
  distinctId: 'u_42',
}

describe('Umami websites', () => {
  it('map onto properties; a personal website has no parent', () => {
    expect(fromUmamiWebsite(website)).toEqual({
      id: website.id,
      name: 'Acme Web',
      parent_id: undefined,
      created_at: new Date('2024-01-02T03:04:05.000Z'),
      updated_at: new Date('2024-05-01T00:00:00.000Z'),
      raw: website,
    })
    expect(fromUmamiWebsite({ ...website, teamId: 'team-1' }).parent_id).toBe('team-1')
  })

  it('are written from name, raw.domain and parent_id, refusing fields Umami does not have', () => {
    expect(toUmamiWebsite({ name: 'Shop', parent_id: 't1', raw: { domain: 'shop.acme.com' } }, true)).toEqual(
      {
        name: 'Shop',
        domain: 'shop.acme.com',
        teamId: 't1',
      },
    )
    expect(() => toUmamiWebsite({ name: 'Shop' }, true)).toThrow(/raw.domain/)
    expect(() => toUmamiWebsite({ name: 'Shop', timezone: 'UTC' }, false)).toThrow(/no timezone/)
    expect(toUmamiWebsite({ name: 'Renamed' }, false)).toEqual({ name: 'Renamed' })
  })
})

describe('Umami events', () => {
  it('map a pageview with its URL, campaign tags and a session id carrying the website', () => {
    const e = fromUmamiEvent(event)
    expect(e).toMatchObject({
      id: event.id,
      name: 'pageview',
      event_type: 'PAGE_VIEW',
      property_id: website.id,
      session_id: `${website.id}:${session.id}`,
      page_url: 'https://acme.com/pricing?utm_source=newsletter&utm_campaign=spring',
      page_title: 'Pricing',
      page_referrer: 'google.com',
      utm_source: 'newsletter',
      utm_campaign: 'spring',
      created_at: new Date('2024-05-01T10:00:00.123Z'),
    })
    expect(e.visitor_id).toBeUndefined()
    expect(e.utm_medium).toBeUndefined()
  })

  it('map a custom event by its name as CUSTOM', () => {
    const e = fromUmamiEvent({
      ...event,
      eventType: 2,
      eventName: 'signup_click',
      country: 'DE',
      device: 'mobile',
    })
    expect(e).toMatchObject({
      name: 'signup_click',
      event_type: 'CUSTOM',
      country_code: 'DE',
      device: 'mobile',
    })
    // List rows carry no distinct id: the visitor is read from the session detail (a slow field).
    expect(e.visitor_id).toBeUndefined()
  })

  it('build the /api/send body, with utm tags in the URL and revenue in event data', () => {
    const sent = toUmamiSend({
      name: 'checkout',
      property_id: website.id,
      page_url: 'https://acme.com/cart?x=1',
      page_title: 'Cart',
      visitor_id: 'u_42',
      utm_source: 'mail',
      value: 19.99,
      currency: 'USD',
      metadata: { plan: { tier: 'pro' } },
      raw: { language: 'en-US' },
    })
    expect(sent).toEqual({
      type: 'event',
      payload: {
        website: website.id,
        hostname: 'acme.com',
        url: '/cart?x=1&utm_source=mail',
        title: 'Cart',
        name: 'checkout',
        id: 'u_42',
        data: { plan: { tier: 'pro' }, revenue: 19.99, currency: 'USD' },
        language: 'en-US',
      },
    })
  })

  it('send a PAGE_VIEW without a name, and refuse what Umami cannot take', () => {
    expect(toUmamiSend({ event_type: 'PAGE_VIEW', property_id: 'w', page_url: '/a' }).payload).toEqual({
      website: 'w',
      url: '/a',
    })
    expect(() => toUmamiSend({ name: 'x' })).toThrow(/property_id/)
    expect(() => toUmamiSend({ property_id: 'w' })).toThrow(/needs a name/)
    expect(() => toUmamiSend({ property_id: 'w', name: 'x', country: 'US' })).toThrow(/country/)
  })

  it('answer the created event with our id and Umami session', () => {
    const body = { name: 'x', property_id: 'w' }
    const sent = toUmamiSend(body)
    const now = new Date('2024-05-01T00:00:00Z')
    const e = fromUmamiSendResponse('our-id', body, sent, { sessionId: 's1', visitId: 'v1' }, now)
    expect(e).toMatchObject({
      id: 'our-id',
      name: 'x',
      event_type: 'CUSTOM',
      session_id: 'w:s1',
      created_at: now,
    })
    expect(e.raw).toEqual({ sessionId: 's1', visitId: 'v1', __id: 'our-id' })
  })
})

describe('Umami sessions', () => {
  it('map with a composite id, duration and bounce', () => {
    expect(fromUmamiSession(session)).toMatchObject({
      id: `${website.id}:${session.id}`,
      property_id: website.id,
      visitor_id: 'u_42',
      start_at: new Date('2024-05-01T10:00:00Z'),
      end_at: new Date('2024-05-01T10:12:00Z'),
      duration_seconds: 720,
      page_views: 5,
      events_count: 2,
      device: 'desktop',
      country: 'US',
      city: 'Austin',
      is_bounce: false,
      raw: { __id: session.id },
    })
    expect(fromUmamiSession({ ...session, views: 1 }).is_bounce).toBe(true)
    expect(fromUnifiedSessionId(`${website.id}:${session.id}`)).toEqual({
      websiteId: website.id,
      sessionId: session.id,
    })
    expect(fromUnifiedSessionId('no-colon')).toBeUndefined()
  })

  it('take landing and exit page and the entry campaign from the activity (newest first)', () => {
    const base = { eventId: 'e', visitId: 'v', hostname: 'acme.com', referrerDomain: null, urlQuery: null }
    const activity: UmamiActivity[] = [
      { ...base, createdAt: '2024-05-01T10:12:00Z', urlPath: '/thanks', eventType: 1 },
      { ...base, createdAt: '2024-05-01T10:05:00Z', urlPath: '/cart', eventType: 2, eventName: 'add' },
      {
        ...base,
        createdAt: '2024-05-01T10:00:00Z',
        urlPath: '/',
        eventType: 1,
        referrerDomain: 'google.com',
        urlQuery: 'utm_medium=cpc&utm_campaign=x',
      },
    ]
    expect(sessionFieldsFromUmamiActivity(activity)).toEqual({
      landing_page: '/',
      exit_page: '/thanks',
      source: 'google.com',
      medium: 'cpc',
      campaign: 'x',
    })
  })
})

describe('Umami reports', () => {
  it('turn /stats totals into unified metrics, deriving rates per visit', () => {
    const metrics = metricsFromUmamiStats({
      pageviews: 310,
      visitors: 99,
      visits: 120,
      bounces: 54,
      totaltime: 7440,
    })
    expect(metrics).toEqual([
      { type: 'USERS', value: 99 },
      { type: 'SESSIONS', value: 120 },
      { type: 'PAGE_VIEWS', value: 310 },
      { type: 'BOUNCE_RATE', value: 0.45 },
      { type: 'AVERAGE_SESSION_DURATION', value: 62 },
      { type: 'PAGES_PER_SESSION', value: 310 / 120 },
    ])
  })

  it('read the older {value, prev} stats shape too', () => {
    expect(metricsFromUmamiStats({ visitors: { value: 9, prev: 3 } })).toEqual([{ type: 'USERS', value: 9 }])
  })

  it('label and bound time buckets', () => {
    const start = parseBucket('2024-05-01 00:00:00') as Date
    expect(start.toISOString()).toBe('2024-05-01T00:00:00.000Z')
    expect(bucketLabel(start, 'day')).toBe('2024-05-01')
    expect(bucketLabel(new Date('2024-05-01T10:00:00Z'), 'hour')).toBe('2024-05-01T10:00')
    expect(bucketEnd(new Date('2024-12-01T00:00:00Z'), 'month').toISOString()).toBe(
      '2025-01-01T00:00:00.000Z',
    )
  })
})

describe('Umami /api/send limits', () => {
  it('refuses what Umami would cut silently or fail on: long paths, queries, titles and visitor ids', () => {
    const base = { name: 'x', property_id: 'w' }
    expect(() => toUmamiSend({ ...base, page_url: `/${'a'.repeat(500)}` })).toThrow(/page_url \(path\).*500/)
    expect(() => toUmamiSend({ ...base, page_url: `/?q=${'a'.repeat(499)}` })).toThrow(/page_url \(query\)/)
    expect(() => toUmamiSend({ ...base, page_title: 't'.repeat(501) })).toThrow(/page_title/)
    expect(() => toUmamiSend({ ...base, visitor_id: 'v'.repeat(51) })).toThrow(/visitor_id.*50/)
    expect(
      toUmamiSend({ ...base, page_url: `/${'a'.repeat(499)}`, page_title: 't'.repeat(500) }).payload.title,
    ).toHaveLength(500)
  })
})
