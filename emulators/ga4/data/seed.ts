import { hash32, SeededRandom } from '../../kit/index.js'

/**
 * The GA4 world an emulator starts with: accounts, their properties, and each property's web stream, shaped
 * as googleapis/googleapis@75aa1b3b:google/analytics/admin/v1beta/resources.proto defines Account, Property
 * and DataStream; names, zones and ids are made up.
 */

export interface Ga4SeedOptions {
  readonly seed?: number
  readonly accounts?: number
  readonly propertiesPerAccount?: number
}

export interface EmulatedProperty {
  name: string
  parent: string
  account: string
  displayName: string
  timeZone: string
  currencyCode: string
  industryCategory: string
  propertyType: string
  serviceLevel: string
  createTime: string
  updateTime: string
  deleteTime?: string
  expireTime?: string
}

export interface EmulatedAccount {
  readonly name: string
  readonly displayName: string
  readonly regionCode: string
  readonly createTime: string
}

export interface EmulatedStream {
  readonly name: string
  readonly property: string
  readonly measurementId: string
  readonly apiSecret: string
  readonly defaultUri: string
}

export interface Ga4Seed {
  readonly accounts: EmulatedAccount[]
  readonly properties: EmulatedProperty[]
  readonly streams: EmulatedStream[]
}

const TIME_ZONES = [
  'America/Los_Angeles',
  'America/New_York',
  'Europe/Paris',
  'Europe/London',
  'Asia/Tokyo',
  'UTC',
]
const CURRENCIES = ['USD', 'USD', 'EUR', 'GBP', 'JPY', 'USD']
const INDUSTRIES = ['TECHNOLOGY', 'SHOPPING', 'FOOD_AND_DRINK', 'JOBS_AND_EDUCATION', 'AUTOMOTIVE', 'TRAVEL']
const BRANDS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Tyrell']
const SITES = ['Web', 'Shop', 'Blog', 'Docs', 'App', 'Store']
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** Account ids start at 100 and property ids at 1000 (like providers.md's examples), numbered in order. */
export const FIRST_ACCOUNT_ID = 100
export const FIRST_PROPERTY_ID = 1000

function chars(random: SeededRandom, n: number): string {
  let s = ''
  for (let i = 0; i < n; i++) s += random.pick([...ALNUM])
  return s
}

export function seedGa4(options: Ga4SeedOptions = {}): Ga4Seed {
  const seed = options.seed ?? 1
  const accountCount = options.accounts ?? 3
  const perAccount = options.propertiesPerAccount ?? 4
  const accounts: EmulatedAccount[] = []
  const properties: EmulatedProperty[] = []
  const streams: EmulatedStream[] = []
  const base = Date.UTC(2023, 0, 1)
  let propertyId = FIRST_PROPERTY_ID
  for (let a = 0; a < accountCount; a++) {
    const random = new SeededRandom(hash32(seed, a))
    const brand = `${BRANDS[a % BRANDS.length]}${a >= BRANDS.length ? ` ${Math.floor(a / BRANDS.length) + 1}` : ''}`
    const account = `accounts/${FIRST_ACCOUNT_ID + a}`
    accounts.push({
      name: account,
      displayName: brand,
      regionCode: random.pick(['US', 'FR', 'GB', 'JP']),
      createTime: new Date(base + a * 86_400_000).toISOString(),
    })
    for (let p = 0; p < perAccount; p++) {
      const i = random.int(0, TIME_ZONES.length - 1)
      const created = base + a * 86_400_000 + (p + 1) * 3_600_000 + random.int(0, 999)
      const name = `properties/${propertyId++}`
      properties.push({
        name,
        parent: account,
        account,
        displayName: `${brand} ${SITES[p % SITES.length]}${p >= SITES.length ? ` ${p + 1}` : ''}`,
        timeZone: TIME_ZONES[i] as string,
        currencyCode: CURRENCIES[i] as string,
        industryCategory: random.pick(INDUSTRIES),
        propertyType: 'PROPERTY_TYPE_ORDINARY',
        serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
        createTime: new Date(created).toISOString(),
        updateTime: new Date(created + random.int(1, 300) * 86_400_000).toISOString(),
      })
      streams.push({
        name: `${name}/dataStreams/${hash32(seed, a, p) % 9_000_000_000}`,
        property: name,
        measurementId: `G-${chars(random, 10)}`,
        apiSecret: chars(random, 22),
        defaultUri: `https://${brand.toLowerCase().replace(/\s+/g, '')}.example`,
      })
    }
  }
  return { accounts, properties, streams }
}
