import { randomBytes } from 'node:crypto'
import { HOUR_MS, SeededRandom } from '../kit/index.js'

export interface ContactRecord {
  id: string
  properties: Record<string, string>
  createdAt: number
  updatedAt: number
  archivedAt?: number
  companies: Set<string>
  deals: Set<string>
}

/**
 * HubSpot's default contact properties the emulator knows, and which of them the API cannot write
 * (https://knowledge.hubspot.com/properties/hubspots-default-contact-properties; a write to a read-only
 * one is refused with READ_ONLY_VALUE, https://developers.hubspot.com/docs/api/error-handling).
 */
export const WRITABLE_PROPERTIES = [
  'email',
  'firstname',
  'lastname',
  'phone',
  'mobilephone',
  'fax',
  'company',
  'jobtitle',
  'address',
  'city',
  'state',
  'zip',
  'country',
  'website',
  'hubspot_owner_id',
  'lifecyclestage',
  'hs_lead_status',
  'numemployees',
  'industry',
] as const
export const READ_ONLY_PROPERTIES = [
  'hs_object_id',
  'createdate',
  'lastmodifieddate',
  'hs_additional_emails',
] as const

/** Properties a search or list answers when none are named (https://developers.hubspot.com/docs/guides/api/crm/search, "Make a search request"). */
export const DEFAULT_PROPERTIES = [
  'createdate',
  'email',
  'firstname',
  'hs_object_id',
  'lastmodifieddate',
  'lastname',
]

export interface OAuthClient {
  readonly clientId: string
  readonly clientSecret: string
  readonly redirectUris: readonly string[]
}

export interface AccessToken {
  readonly clientId: string
  readonly scopes: readonly string[]
  expiresAt: number
}

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Linus',
  'Margaret',
]
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Johnson',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Torvalds',
  'Hamilton',
]
const COMPANIES = ['Analytical Engines', 'Navy Labs', 'Bletchley', 'NASA Langley', 'Eindhoven Tech']
const TITLES = ['Engineer', 'Programmer', 'Director', 'Analyst', 'Manager']
export const OWNER_IDS = ['9001', '9002', '9003']

export interface HubspotStateOptions {
  readonly seed: number
  readonly contacts: number
  readonly tokens: readonly string[]
  readonly portalId: number
  readonly untilMs: number
  readonly tenSecondlyLimit: number
  readonly searchPerSecond: number
  /** How long a write takes to show in search results (the search index lags the records). */
  readonly searchLagMs: number
  /** Requests a day per private app token (HubSpot's daily limit), counted per day of the account's time zone. */
  readonly dailyLimit: number
}

export class HubspotState {
  readonly contacts = new Map<string, ContactRecord>()
  readonly companyIds: string[] = []
  readonly dealIds: string[] = []
  readonly privateAppTokens: Set<string>
  readonly clients = new Map<string, OAuthClient>()
  readonly accessTokens = new Map<string, AccessToken>()
  readonly refreshTokens = new Map<string, { clientId: string; scopes: readonly string[] }>()
  readonly codes = new Map<string, { clientId: string; redirectUri: string; scopes: readonly string[] }>()
  /** Request times per token, for the rolling ten-second limit and the search limit. */
  readonly calls = new Map<string, number[]>()
  readonly searches = new Map<string, number[]>()
  /** Requests per `token|day` (the day in the account's time zone). */
  readonly daily = new Map<string, number>()
  /** How long a write takes to show in search; starts at the option, a test may change it. */
  searchLagMs: number
  /** Requests a day per private app token; starts at the option, a test may change it. */
  dailyLimit: number
  /**
   * Associated ids per contact in one page of a v4 batch read. HubSpot pages them (the result's `paging`,
   * associations v4 spec) without documenting the size; 500 is the per-call limit of the same spec's
   * single-record read. A test may lower it.
   */
  associationPageSize = 500
  private nextId: number

  constructor(readonly options: HubspotStateOptions) {
    this.privateAppTokens = new Set(options.tokens)
    this.searchLagMs = options.searchLagMs
    this.dailyLimit = options.dailyLimit
    const rnd = new SeededRandom(options.seed)
    for (let i = 0; i < 5; i++) this.companyIds.push(String(7000 + i))
    for (let i = 0; i < 8; i++) this.dealIds.push(String(8000 + i))
    let id = 51
    const span = 60 * 24 * HOUR_MS
    for (let i = 0; i < options.contacts; i++) {
      const first = rnd.pick(FIRST)
      const last = rnd.pick(LAST)
      const createdAt = options.untilMs - span + Math.floor(rnd.next() * span * 0.8)
      const updatedAt = Math.min(options.untilMs, createdAt + Math.floor(rnd.next() * span * 0.2))
      const contactId = String(id)
      id += rnd.int(1, 3)
      const properties: Record<string, string> = {
        firstname: first,
        lastname: last,
        email: `${first}.${last}.${contactId}@example.com`.toLowerCase(),
        company: rnd.pick(COMPANIES),
        jobtitle: rnd.pick(TITLES),
        hubspot_owner_id: rnd.pick(OWNER_IDS),
        lifecyclestage: rnd.pick(['lead', 'subscriber', 'customer']),
      }
      if (rnd.chance(0.6)) properties.phone = `+1 555 01${String(rnd.int(0, 99)).padStart(2, '0')}`
      if (rnd.chance(0.3)) properties.mobilephone = `+1 555 02${String(rnd.int(0, 99)).padStart(2, '0')}`
      if (rnd.chance(0.5)) {
        properties.city = rnd.pick(['Boston', 'London', 'Berlin'])
        properties.country = rnd.pick(['United States', 'United Kingdom', 'Germany'])
      }
      const companies = new Set<string>()
      if (rnd.chance(0.7)) companies.add(rnd.pick(this.companyIds))
      const deals = new Set<string>()
      if (rnd.chance(0.4)) deals.add(rnd.pick(this.dealIds))
      this.contacts.set(contactId, { id: contactId, properties, createdAt, updatedAt, companies, deals })
    }
    this.nextId = id + 100
  }

  newContactId(): string {
    const id = String(this.nextId)
    this.nextId += 1
    return id
  }

  /** Contacts that are not archived, in id order (the plain list's order). */
  liveContacts(): ContactRecord[] {
    return [...this.contacts.values()]
      .filter((c) => c.archivedAt === undefined)
      .sort((a, b) => Number(a.id) - Number(b.id))
  }

  contactByEmail(email: string): ContactRecord | undefined {
    const wanted = email.toLowerCase()
    return this.liveContacts().find((c) => c.properties.email?.toLowerCase() === wanted)
  }

  registerClient(client: OAuthClient): void {
    this.clients.set(client.clientId, client)
  }

  /** Issues a token pair as the token endpoint would, e.g. for a connection made from held tokens. */
  issueTokens(clientId: string, scopes: readonly string[], ttlSeconds: number) {
    const access = `CN${randomBytes(24).toString('base64url')}`
    const refresh = `na1-${randomBytes(12).toString('hex')}`
    this.accessTokens.set(access, { clientId, scopes, expiresAt: Date.now() + ttlSeconds * 1000 })
    this.refreshTokens.set(refresh, { clientId, scopes })
    return { access_token: access, refresh_token: refresh, expires_in: ttlSeconds }
  }

  /** Makes an access token expire now (as 30 minutes passing would). */
  expireAccessToken(token: string): void {
    const t = this.accessTokens.get(token)
    if (t) t.expiresAt = Date.now() - 1
  }
}
