/** The fixed vocabulary seeded data is drawn from: a small web shop with a mobile app. */

export const SITE_HOST = 'shop.example.com'
export const SITE_ORIGIN = `https://${SITE_HOST}`

export interface Page {
  readonly path: string
  readonly title: string
}

export const PAGES: readonly Page[] = [
  { path: '/', title: 'Example Shop' },
  { path: '/pricing', title: 'Pricing | Example Shop' },
  { path: '/blog', title: 'Blog | Example Shop' },
  { path: '/blog/launch-week', title: 'Launch week | Example Shop' },
  { path: '/docs', title: 'Docs | Example Shop' },
  { path: '/docs/getting-started', title: 'Getting started | Example Shop' },
  { path: '/products/widget', title: 'Widget | Example Shop' },
  { path: '/products/gadget', title: 'Gadget | Example Shop' },
  { path: '/signup', title: 'Sign up | Example Shop' },
  { path: '/login', title: 'Log in | Example Shop' },
  { path: '/checkout', title: 'Checkout | Example Shop' },
  { path: '/about', title: 'About us | Example Shop' },
]
/** How likely each page is to be visited (same order as PAGES). */
export const PAGE_WEIGHTS: readonly number[] = [30, 12, 8, 6, 8, 5, 10, 8, 4, 5, 3, 2]

export const SCREENS: readonly string[] = ['Home', 'Feed', 'Product', 'Cart', 'Settings', 'Profile']

export interface DeviceProfile {
  readonly deviceType: 'Desktop' | 'Mobile' | 'Tablet'
  readonly os: string
  readonly osVersion: string
  readonly browser?: string
  readonly browserVersion?: number
  /** Native app sessions send `$screen` events instead of page views. */
  readonly app: boolean
  readonly lib: string
  readonly libVersion: string
}

export const DEVICES: readonly DeviceProfile[] = [
  {
    deviceType: 'Desktop',
    os: 'Mac OS X',
    osVersion: '14.4.1',
    browser: 'Chrome',
    browserVersion: 124,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Desktop',
    os: 'Windows',
    osVersion: '10.0',
    browser: 'Chrome',
    browserVersion: 123,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Desktop',
    os: 'Windows',
    osVersion: '10.0',
    browser: 'Microsoft Edge',
    browserVersion: 124,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Desktop',
    os: 'Linux',
    osVersion: '',
    browser: 'Firefox',
    browserVersion: 125,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Desktop',
    os: 'Mac OS X',
    osVersion: '14.4.1',
    browser: 'Safari',
    browserVersion: 17.4,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Mobile',
    os: 'iOS',
    osVersion: '17.4.1',
    browser: 'Mobile Safari',
    browserVersion: 17.4,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Mobile',
    os: 'Android',
    osVersion: '14.0.0',
    browser: 'Chrome',
    browserVersion: 124,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Tablet',
    os: 'iOS',
    osVersion: '17.4.1',
    browser: 'Mobile Safari',
    browserVersion: 17.4,
    app: false,
    lib: 'web',
    libVersion: '1.130.0',
  },
  {
    deviceType: 'Mobile',
    os: 'iOS',
    osVersion: '17.4.1',
    app: true,
    lib: 'posthog-ios',
    libVersion: '3.5.0',
  },
  {
    deviceType: 'Mobile',
    os: 'Android',
    osVersion: '14',
    app: true,
    lib: 'posthog-android',
    libVersion: '3.3.0',
  },
]
export const DEVICE_WEIGHTS: readonly number[] = [22, 20, 6, 5, 9, 14, 12, 3, 5, 4]

export interface Geo {
  readonly countryCode: string
  readonly countryName: string
  readonly subdivision: string
  readonly city: string
  readonly timeZone: string
  readonly continentCode: string
}

export const GEOS: readonly Geo[] = [
  {
    countryCode: 'US',
    countryName: 'United States',
    subdivision: 'Texas',
    city: 'Austin',
    timeZone: 'America/Chicago',
    continentCode: 'NA',
  },
  {
    countryCode: 'US',
    countryName: 'United States',
    subdivision: 'California',
    city: 'San Francisco',
    timeZone: 'America/Los_Angeles',
    continentCode: 'NA',
  },
  {
    countryCode: 'GB',
    countryName: 'United Kingdom',
    subdivision: 'England',
    city: 'London',
    timeZone: 'Europe/London',
    continentCode: 'EU',
  },
  {
    countryCode: 'DE',
    countryName: 'Germany',
    subdivision: 'Land Berlin',
    city: 'Berlin',
    timeZone: 'Europe/Berlin',
    continentCode: 'EU',
  },
  {
    countryCode: 'FR',
    countryName: 'France',
    subdivision: 'Île-de-France',
    city: 'Paris',
    timeZone: 'Europe/Paris',
    continentCode: 'EU',
  },
  {
    countryCode: 'BR',
    countryName: 'Brazil',
    subdivision: 'São Paulo',
    city: 'São Paulo',
    timeZone: 'America/Sao_Paulo',
    continentCode: 'SA',
  },
  {
    countryCode: 'IN',
    countryName: 'India',
    subdivision: 'Karnataka',
    city: 'Bengaluru',
    timeZone: 'Asia/Kolkata',
    continentCode: 'AS',
  },
  {
    countryCode: 'JP',
    countryName: 'Japan',
    subdivision: 'Tokyo',
    city: 'Tokyo',
    timeZone: 'Asia/Tokyo',
    continentCode: 'AS',
  },
  {
    countryCode: 'CA',
    countryName: 'Canada',
    subdivision: 'Ontario',
    city: 'Toronto',
    timeZone: 'America/Toronto',
    continentCode: 'NA',
  },
  {
    countryCode: 'AU',
    countryName: 'Australia',
    subdivision: 'New South Wales',
    city: 'Sydney',
    timeZone: 'Australia/Sydney',
    continentCode: 'OC',
  },
]
export const GEO_WEIGHTS: readonly number[] = [18, 14, 12, 10, 7, 6, 9, 5, 8, 5]

/** Where a session came from: what posthog-js records as `$referrer` and the campaign (`utm_*`) parameters. */
export interface Traffic {
  readonly referrer: string
  readonly referringDomain: string
  readonly utmSource?: string
  readonly utmMedium?: string
  readonly utmCampaign?: string
  readonly utmContent?: string
  readonly utmTerm?: string
  readonly gclid?: string
  /** Index into PAGES of where such visits land. */
  readonly landingPage: number
}

export const TRAFFIC: readonly Traffic[] = [
  { referrer: '$direct', referringDomain: '$direct', landingPage: 0 },
  { referrer: 'https://www.google.com/', referringDomain: 'www.google.com', landingPage: 4 },
  { referrer: 'https://news.ycombinator.com/', referringDomain: 'news.ycombinator.com', landingPage: 3 },
  {
    referrer: 'https://t.co/',
    referringDomain: 't.co',
    utmSource: 'twitter',
    utmMedium: 'social',
    utmCampaign: 'launch_week',
    landingPage: 3,
  },
  {
    referrer: '$direct',
    referringDomain: '$direct',
    utmSource: 'newsletter',
    utmMedium: 'email',
    utmCampaign: 'spring_digest',
    utmContent: 'header_link',
    landingPage: 2,
  },
  {
    referrer: 'https://www.google.com/',
    referringDomain: 'www.google.com',
    utmSource: 'google',
    utmMedium: 'cpc',
    utmCampaign: 'brand_search',
    utmTerm: 'example shop',
    gclid: 'Cj0KCQjw_emulator',
    landingPage: 1,
  },
]
export const TRAFFIC_WEIGHTS: readonly number[] = [35, 25, 8, 10, 12, 10]

export const FIRST_NAMES: readonly string[] = [
  'Ann',
  'Ben',
  'Chloe',
  'Dev',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemi',
  'Luca',
  'Maya',
  'Nils',
  'Olu',
  'Priya',
]
export const LAST_NAMES: readonly string[] = [
  'Smith',
  'Okafor',
  'Martin',
  'Patel',
  'Rossi',
  'Khan',
  'Lee',
  'Tanaka',
  'Silva',
  'Schmidt',
  'Dubois',
  'Nowak',
]
export const PLANS: readonly string[] = ['free', 'pro', 'enterprise']

export const PRODUCTS: readonly { readonly name: string; readonly price: number }[] = [
  { name: 'Widget', price: 19.99 },
  { name: 'Gadget', price: 49 },
  { name: 'Widget Pro', price: 129.5 },
]
export const SEARCH_TERMS: readonly string[] = [
  'widget',
  'gadget price',
  'shipping',
  'refund policy',
  'api docs',
]
export const FILES: readonly string[] = ['whitepaper.pdf', 'pricing-sheet.pdf', 'sdk-1.2.0.zip']
export const VIDEOS: readonly string[] = ['intro-tour', 'widget-setup', 'customer-story']
