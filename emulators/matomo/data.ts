import type { SeededRandom } from '../kit/index.js'

export interface Place {
  readonly country: string
  readonly code: string
  readonly continent: string
  readonly region: string
  readonly city: string
}

export const PLACES: readonly Place[] = [
  { country: 'France', code: 'fr', continent: 'Europe', region: 'Île-de-France', city: 'Paris' },
  { country: 'Germany', code: 'de', continent: 'Europe', region: 'Berlin', city: 'Berlin' },
  { country: 'United States', code: 'us', continent: 'North America', region: 'Texas', city: 'Austin' },
  {
    country: 'United States',
    code: 'us',
    continent: 'North America',
    region: 'California',
    city: 'San Francisco',
  },
  { country: 'Japan', code: 'jp', continent: 'Asia', region: 'Tokyo', city: 'Tokyo' },
  { country: 'Brazil', code: 'br', continent: 'South America', region: 'São Paulo', city: 'São Paulo' },
]

export const DEVICES = [
  {
    deviceType: 'Desktop',
    os: 'Mac',
    osCode: 'MAC',
    osVersion: '10.15',
    browser: 'Chrome',
    browserCode: 'CH',
  },
  {
    deviceType: 'Desktop',
    os: 'Windows',
    osCode: 'WIN',
    osVersion: '11',
    browser: 'Firefox',
    browserCode: 'FF',
  },
  {
    deviceType: 'Smartphone',
    os: 'iOS',
    osCode: 'IOS',
    osVersion: '17.4',
    browser: 'Mobile Safari',
    browserCode: 'MF',
  },
  {
    deviceType: 'Smartphone',
    os: 'Android',
    osCode: 'AND',
    osVersion: '14',
    browser: 'Chrome Mobile',
    browserCode: 'CM',
  },
  {
    deviceType: 'Tablet',
    os: 'iPadOS',
    osCode: 'IOS',
    osVersion: '17.4',
    browser: 'Mobile Safari',
    browserCode: 'MF',
  },
] as const

/** `referrerType` with its display name and the names it carries. */
export const REFERRERS = [
  { type: 'direct', typeName: 'Direct Entry', names: [''], url: '' },
  {
    type: 'search',
    typeName: 'Search Engines',
    names: ['Google', 'Bing', 'DuckDuckGo'],
    url: 'https://www.google.com/',
  },
  {
    type: 'website',
    typeName: 'Websites',
    names: ['news.ycombinator.com', 'example.org'],
    url: 'https://example.org/post',
  },
  {
    type: 'social',
    typeName: 'Social Networks',
    names: ['LinkedIn', 'Mastodon'],
    url: 'https://www.linkedin.com/',
  },
  { type: 'campaign', typeName: 'Campaigns', names: ['spring_sale', 'newsletter_may'], url: '' },
] as const

export const PAGES = [
  { path: '/', title: 'Home' },
  { path: '/pricing', title: 'Pricing' },
  { path: '/docs', title: 'Documentation' },
  { path: '/docs/api', title: 'API reference' },
  { path: '/blog/launch', title: 'We launched' },
  { path: '/signup', title: 'Sign up' },
] as const

export const TIMEZONES = ['UTC', 'America/New_York', 'Europe/Paris', 'Asia/Tokyo', 'UTC+5.5'] as const

export function hex16(random: SeededRandom): string {
  return (
    random.uint32().toString(16).padStart(8, '0') + random.uint32().toString(16).padStart(8, '0')
  ).slice(0, 16)
}
