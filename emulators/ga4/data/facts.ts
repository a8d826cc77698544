import { hash32, SeededRandom } from '../../kit/index.js'
import { utc } from '../../kit/zones.js'

/**
 * Report data: each property's traffic for a day is a handful of "fact" rows, each a combination of
 * dimension values with additive counts, drawn from a seed so every day of every property always holds
 * the same numbers. Reports group and sum facts, so breakdowns add up to totals as in GA4.
 */

export interface Fact {
  readonly dims: Readonly<Record<string, string>>
  readonly counts: Readonly<Record<string, number>>
}

const COUNTRIES = [
  ['United States', 'US', 'New York'],
  ['United States', 'US', 'San Francisco'],
  ['France', 'FR', 'Paris'],
  ['Germany', 'DE', 'Berlin'],
  ['Japan', 'JP', 'Tokyo'],
  ['United Kingdom', 'GB', 'London'],
] as const
const DEVICES = [
  ['desktop', 'Chrome', 'Windows'],
  ['desktop', 'Safari', 'Macintosh'],
  ['mobile', 'Safari', 'iOS'],
  ['mobile', 'Chrome', 'Android'],
  ['tablet', 'Safari', 'iOS'],
] as const
const SOURCES = [
  ['google', 'organic', '(organic)', 'Organic Search'],
  ['(direct)', '(none)', '(direct)', 'Direct'],
  ['newsletter', 'email', 'spring_sale', 'Email'],
  ['facebook.com', 'referral', '(referral)', 'Organic Social'],
  ['google', 'cpc', 'brand_search', 'Paid Search'],
] as const
const PAGES = [
  ['/', 'Home'],
  ['/pricing', 'Pricing'],
  ['/blog/launch', 'We launched'],
  ['/docs/start', 'Getting started'],
  ['/checkout', 'Checkout'],
] as const
const EVENTS = ['page_view', 'page_view', 'page_view', 'scroll', 'click', 'purchase', 'sign_up'] as const

/**
 * Every dimension the emulator can report on, with values formatted as the API schema gives them: `date`
 * YYYYMMDD, `dateHour` YYYYMMDDHH, `hour` and `month` two digits, `dayOfWeek` 0 (Sunday) to 6, `yearMonth`
 * YYYYMM, `isoYearIsoWeek` YYYYWW, countries by name with `countryId` ISO 3166-1
 * (https://developers.google.com/analytics/devguides/reporting/data/v1/api-schema). Values are made up.
 * User counts are summed across facts, so activeUsers over several days is a sum here, where GA4
 * counts distinct users.
 */
export const DIMENSION_NAMES = [
  'date',
  'dateHour',
  'hour',
  'dayOfWeek',
  'month',
  'year',
  'yearMonth',
  'isoYearIsoWeek',
  'country',
  'countryId',
  'city',
  'deviceCategory',
  'browser',
  'operatingSystem',
  'platform',
  'pagePath',
  'pageTitle',
  'landingPage',
  'hostName',
  'eventName',
  'sessionSource',
  'sessionMedium',
  'sessionCampaignName',
  'sessionSourceMedium',
  'sessionDefaultChannelGroup',
  'newVsReturning',
  'language',
] as const

function isoWeek(y: number, m: number, d: number): string {
  const date = new Date(utc(y, m - 1, d))
  const day = date.getUTCDay() || 7
  date.setUTCDate(date.getUTCDate() + 4 - day)
  const yearStart = utc(date.getUTCFullYear(), 0, 1)
  const week = Math.ceil(((date.getTime() - yearStart) / 86_400_000 + 1) / 7)
  return `${date.getUTCFullYear()}${String(week).padStart(2, '0')}`
}

/** The facts of one property on one day (YYYY-MM-DD, the property's calendar day). */
export function factsFor(seed: number, propertyNumber: number, day: string, perDay: number): Fact[] {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  const dayNumber = Math.floor(utc(y, m - 1, d) / 86_400_000)
  const random = new SeededRandom(hash32(seed, propertyNumber, dayNumber))
  const compact = day.replaceAll('-', '')
  const dow = String(new Date(utc(y, m - 1, d)).getUTCDay())
  const facts: Fact[] = []
  for (let i = 0; i < perDay; i++) {
    const [country, countryId, city] = random.pick(COUNTRIES)
    const [device, browser, os] = random.pick(DEVICES)
    const [source, medium, campaign, channel] = random.pick(SOURCES)
    const [path, title] = random.pick(PAGES)
    const [landing] = random.pick(PAGES)
    const event = random.pick(EVENTS)
    const hour = String(random.int(0, 23)).padStart(2, '0')
    const users = random.int(1, 60)
    const sessions = users + random.int(0, Math.ceil(users / 2))
    const engaged = random.int(0, sessions)
    const views = sessions * random.int(1, 4)
    const purchases = event === 'purchase' ? random.int(1, 5) : 0
    const revenue = (purchases * random.int(500, 20_000)) / 100
    facts.push({
      dims: {
        date: compact,
        dateHour: `${compact}${hour}`,
        hour,
        dayOfWeek: dow,
        month: String(m).padStart(2, '0'),
        year: String(y),
        yearMonth: compact.slice(0, 6),
        isoYearIsoWeek: isoWeek(y, m, d),
        country,
        countryId,
        city,
        deviceCategory: device,
        browser,
        operatingSystem: os,
        platform: 'web',
        pagePath: path,
        pageTitle: title,
        landingPage: landing,
        hostName: 'www.example.com',
        eventName: event,
        sessionSource: source,
        sessionMedium: medium,
        sessionCampaignName: campaign,
        sessionSourceMedium: `${source} / ${medium}`,
        sessionDefaultChannelGroup: channel,
        newVsReturning: random.chance(0.4) ? 'new' : 'returning',
        language: countryId === 'FR' ? 'French' : countryId === 'DE' ? 'German' : 'English',
      },
      counts: {
        activeUsers: users,
        newUsers: random.int(0, users),
        totalUsers: users,
        sessions,
        engagedSessions: engaged,
        screenPageViews: views,
        eventCount: views + random.int(0, sessions * 3),
        keyEvents: purchases + (event === 'sign_up' ? random.int(1, 3) : 0),
        transactions: purchases,
        purchaseRevenue: revenue,
        totalRevenue: revenue,
        userEngagementDuration: engaged * random.int(10, 400),
        sessionDuration: sessions * random.int(5, 600),
      },
    })
  }
  return facts
}
