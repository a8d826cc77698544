import { describe, expect, it } from 'vitest'
import { encodeMatomoParams, matomoErrorOf } from './client.js'
import visitFixture from './fixtures/visit.json' with { type: 'json' }
import {
  fromMatomoActions,
  fromMatomoSite,
  fromMatomoVisit,
  fromMatomoVisitorProfile,
  toMatomoSiteParams,
  toMatomoTrackingRequest,
} from './mappers.js'
import type { MatomoVisit } from './provider-types.js'
import { fromMatomoMetrics } from './report.js'
import { SUMMARY_METRICS } from './report-spec.js'
import { startOfDayIn } from './timezone.js'

const visit = visitFixture as unknown as MatomoVisit

describe('Matomo mappers', () => {
  it('maps a site, strings and all', () => {
    const site = {
      idsite: '1',
      name: 'Acme Web',
      main_url: 'https://acme.com',
      ts_created: '2024-01-02 03:04:05',
      ecommerce: '0',
      timezone: 'America/New_York',
      currency: 'USD',
      group: '',
      type: 'website',
    }
    const p = fromMatomoSite(site)
    expect(p).toMatchObject({ id: '1', name: 'Acme Web', timezone: 'America/New_York', currency: 'USD' })
    expect(p.parent_id).toBeUndefined()
    expect((p.created_at as Date).toISOString()).toBe('2024-01-02T03:04:05.000Z')
    expect(p.raw).toEqual(site)
  })

  it('turns a unified property into addSite parameters, raw settings included', () => {
    expect(
      toMatomoSiteParams({
        name: 'Shop',
        timezone: 'UTC',
        parent_id: 'EU',
        raw: { urls: ['https://a.io'], ecommerce: 1 },
      }),
    ).toEqual({ siteName: 'Shop', timezone: 'UTC', group: 'EU', urls: ['https://a.io'], ecommerce: '1' })
  })

  it('maps a visit to a session with composite ids', () => {
    const s = fromMatomoVisit(visit)
    expect(s).toMatchObject({
      id: '1:68536',
      property_id: '1',
      visitor_id: '1:abcdef0123456789',
      duration_seconds: 33,
      landing_page: 'https://acme.com/',
      exit_page: 'https://acme.com/pricing',
      page_views: 2,
      events_count: 3,
      source: 'Google',
      medium: 'search',
      device: 'Desktop',
      browser: 'Chrome',
      os: 'Mac',
      country: 'France',
      city: 'Bezons',
      is_bounce: false,
      is_conversion: false,
    })
    expect(s.campaign).toBeUndefined()
    expect((s.start_at as Date).toISOString()).toBe('2024-05-01T18:43:05.000Z')
    expect((s.raw as Record<string, unknown>).__id).toBe('68536')
  })

  it('maps actions to events with the visit context', () => {
    const [page, video] = fromMatomoActions(visit, 'UTC')
    expect(page).toMatchObject({
      id: '1:68536:0',
      event_type: 'PAGE_VIEW',
      name: 'Home',
      session_id: '1:68536',
      page_url: 'https://acme.com/',
      page_referrer: 'https://www.google.com/',
      country_code: 'FR',
    })
    expect(video).toMatchObject({ id: '1:68536:1', event_type: 'VIDEO_PLAY', name: 'Play', value: 3 })
    expect(video?.metadata).toEqual({
      eventCategory: { value: 'Videos' },
      eventAction: { value: 'Play' },
      eventName: { value: 'Intro' },
    })
    expect(video?.page_referrer).toBeUndefined()
  })

  it("reads an action's wall-clock timestamp in the site's timezone", () => {
    // Live writes action times as UTC plus the site offset (plugins/Actions/VisitorDetails.php).
    const utc = Date.parse('2024-05-01T18:43:05Z') / 1000
    const at = (tz: string, wall: number) => {
      const one = { ...visit, firstActionTimestamp: utc, lastActionTimestamp: utc }
      const [event] = fromMatomoActions({ ...one, actionDetails: [{ type: 'action', timestamp: wall }] }, tz)
      return (event?.created_at as Date | undefined)?.toISOString()
    }
    expect(at('Europe/Paris', utc + 2 * 3600)).toBe('2024-05-01T18:43:05.000Z')
    expect(at('America/New_York', utc - 4 * 3600)).toBe('2024-05-01T18:43:05.000Z')
    expect(at('UTC+5.5', utc + 5.5 * 3600)).toBe('2024-05-01T18:43:05.000Z')
    expect(at('UTC', utc)).toBe('2024-05-01T18:43:05.000Z')
  })

  describe('in the hour the clocks repeat when daylight saving ends', () => {
    // Europe/Berlin, Sunday 27 October 2024: 03:00 CEST (01:00 UTC) becomes 02:00 CET, so the wall
    // clock reads 02:00 to 03:00 twice. Live writes each action's time on that clock.
    const tz = 'Europe/Berlin'
    const utc = (hm: string) => Date.parse(`2024-10-27T${hm}:00Z`) / 1000
    const berlinWall = (t: number) => t + (t < utc('01:00') ? 7200 : 3600)
    const eventsAt = (times: string[]) => {
      const instants = times.map(utc)
      const dst = {
        ...visit,
        firstActionTimestamp: instants[0] as number,
        lastActionTimestamp: instants[instants.length - 1] as number,
        actionDetails: instants.map((t) => ({
          type: 'action',
          url: 'https://acme.com/',
          timestamp: berlinWall(t),
        })),
      }
      return fromMatomoActions(dst, tz).map((e) => (e.created_at as Date).toISOString().slice(11, 16))
    }

    it("takes the instant inside the visit's own bounds", () => {
      // 02:40 and 02:55 CEST, then 02:10 and 02:25 CET: the visit runs from 00:40 to 01:25 UTC.
      expect(eventsAt(['00:40', '00:55', '01:10', '01:25'])).toEqual(['00:40', '00:55', '01:10', '01:25'])
    })

    it('keeps the actions in time order where both instants lie inside the bounds', () => {
      const times = ['00:05', '00:20', '00:35', '00:50', '01:05', '01:20', '01:35', '01:50', '01:55']
      expect(eventsAt(times)).toEqual(times)
    })

    it('keeps the actions in time order where neither instant lies inside the bounds', () => {
      // Bounds that miss the repeated readings (a visit whose columns disagree with its actions).
      const dst = {
        ...visit,
        firstActionTimestamp: utc('00:58'),
        lastActionTimestamp: utc('01:02'),
        actionDetails: [utc('00:50'), utc('01:20')].map((t) => ({
          type: 'action',
          timestamp: berlinWall(t),
        })),
      }
      expect(
        fromMatomoActions(dst, tz).map((e) => (e.created_at as Date).toISOString().slice(11, 16)),
      ).toEqual(['00:50', '01:20'])
    })
  })

  it('maps a visitor profile: first action time, and the most visited of the ascending countries', () => {
    // Shaped as Live.getVisitorProfile answers (plugins/Live/VisitorDetails.php: firstVisit.date is the
    // first action's unix time; plugins/UserCountry/VisitorDetails.php: countries asorted by visits).
    const v = fromMatomoVisitorProfile('1', {
      visitorId: 'abcdef0123456789',
      totalVisits: 4,
      totalPageViews: '9',
      totalActions: 12,
      firstVisit: { date: 1711976645, prettyDate: 'Monday, April 1, 2024' },
      lastVisits: [visit],
      countries: [
        { country: 'de', prettyName: 'Germany', nb_visits: 1 },
        { country: 'fr', prettyName: 'France', nb_visits: 3 },
      ],
    })
    expect(v).toMatchObject({
      id: '1:abcdef0123456789',
      total_sessions: 4,
      total_page_views: 9,
      total_events: 12,
      country: 'France',
      country_code: 'FR',
      language: 'fr-fr',
    })
    expect((v.first_seen_at as Date).toISOString()).toBe('2024-04-01T13:04:05.000Z')
    expect((v.last_seen_at as Date).toISOString()).toBe('2024-05-01T18:43:38.000Z')
  })

  it('leaves out profile totals that cover only the 100 most recent visits', () => {
    const v = fromMatomoVisitorProfile('1', {
      visitorId: 'abcdef0123456789',
      hasMoreVisits: true,
      totalVisits: 100,
      totalPageViews: 250,
      totalActions: 300,
      lastVisits: [visit],
    })
    expect(v.total_sessions).toBeUndefined()
    expect(v.total_page_views).toBeUndefined()
    expect(v.total_events).toBeUndefined()
  })

  it('builds tracking requests per event type', () => {
    const page = toMatomoTrackingRequest('3', 'id-1', {
      event_type: 'PAGE_VIEW',
      page_url: 'https://a.io/x',
      page_title: 'X',
      visitor_id: '3:ABCDEF0123456789',
      created_at: '2024-05-01T00:00:00Z',
    })
    expect(Object.fromEntries(page)).toMatchObject({
      idsite: '3',
      rec: '1',
      url: 'https://a.io/x',
      action_name: 'X',
      cid: 'abcdef0123456789',
      cdt: '1714521600',
    })
    const order = toMatomoTrackingRequest('3', 'id-2', {
      event_type: 'PURCHASE',
      value: 9.5,
      visitor_id: 'user@x',
    })
    expect(Object.fromEntries(order)).toMatchObject({
      idgoal: '0',
      ec_id: 'id-2',
      revenue: '9.5',
      uid: 'user@x',
    })
    const custom = toMatomoTrackingRequest('3', 'id-3', { name: 'Signed up', value: 2 })
    expect(Object.fromEntries(custom)).toMatchObject({ e_c: 'Custom', e_a: 'Signed up', e_v: '2' })
  })

  it('maps report columns, skipping formatted values', () => {
    expect(
      fromMatomoMetrics(
        { nb_visits: '150', nb_uniq_visitors: 120, bounce_rate: '40%', max_actions: 25 },
        SUMMARY_METRICS,
      ),
    ).toEqual([
      { value: 120, type: 'USERS' },
      { value: 150, type: 'SESSIONS' },
    ])
  })
})

describe('Matomo client helpers', () => {
  it('encodes arrays PHP style', () => {
    expect(encodeMatomoParams({ urls: ['a', 'b'], idSite: 1, skip: undefined })).toBe(
      'urls%5B0%5D=a&urls%5B1%5D=b&idSite=1',
    )
  })

  it('reads an error that arrived with HTTP 200', () => {
    expect(
      matomoErrorOf({ result: 'error', message: 'Unable to authenticate with the provided token.' })?.status,
    ).toBe(401)
    expect(
      matomoErrorOf({
        result: 'error',
        message: "You can't access this resource as it requires 'view' access",
      })?.status,
    ).toBe(403)
    expect(matomoErrorOf({ result: 'success', message: 'ok' })).toBeUndefined()
    expect(matomoErrorOf([{ result: 'error' }])).toBeUndefined()
  })

  it('finds the start of a site day in its timezone', () => {
    expect(startOfDayIn('2024-05-01', 'America/New_York').toISOString()).toBe('2024-05-01T04:00:00.000Z')
    expect(startOfDayIn('2024-01-15', 'Europe/Paris').toISOString()).toBe('2024-01-14T23:00:00.000Z')
    expect(startOfDayIn('2024-05-01', 'UTC+5.5').toISOString()).toBe('2024-04-30T18:30:00.000Z')
    expect(startOfDayIn('2024-05-01', 'UTC').toISOString()).toBe('2024-05-01T00:00:00.000Z')
  })
})
