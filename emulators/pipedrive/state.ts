import { randomBytes } from 'node:crypto'
import { HOUR_MS, SeededRandom } from '../kit/index.js'
import { DEFAULT_APP_SCOPES, DEFAULT_COMPANY_ID, DELETED_KEPT_MS } from './constants.js'
import { PipedriveHooks } from './hooks.js'

export interface Channel {
  value: string
  primary: boolean
  label: string
}

export interface PersonRecord {
  id: number
  name: string
  /**
   * The halves as a write gave them (`first_name` and `last_name`, v2); unset when the name came as `name`,
   * whose halves are then split from it.
   */
  firstName?: string
  lastName?: string
  ownerId: number
  orgId: number | null
  emails: Channel[]
  phones: Channel[]
  customFields: Record<string, unknown>
  addTime: number
  updateTime: number
  deletedAt?: number
  /** Contact-sync fields (answered only when the company has contact sync on). */
  jobTitle?: string
  postalAddress?: Record<string, string>
}

export interface PipedriveStateOptions {
  readonly seed: number
  readonly persons: number
  readonly tokens: readonly string[]
  readonly untilMs: number
  readonly burst: number
  /** Searches per 2-second window per token (Pipedrive's Search API burst limit). */
  readonly searchBurst: number
  /** The company's daily token budget (see constants.ts). */
  readonly dailyTokenBudget: number
  /** Whether the company has contact sync on (then persons answer `job_title`, `postal_address`). */
  readonly contactSync: boolean
  /** Waits before the retries of a failed webhook call (default Pipedrive's 3, 30 and 150 seconds). */
  readonly hookRetryDelaysMs?: readonly number[]
}

const FIRST = ['Ada', 'Grace', 'Alan', 'Katherine', 'Edsger', 'Barbara', 'Donald', 'Frances']
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Johnson', 'Dijkstra', 'Liskov', 'Knuth', 'Allen']

/** Postal addresses as contact sync answers them: formatted `value` and geocoded parts (getPerson v2 example, https://developers.pipedrive.com/docs/api/v1/Persons#getPerson). */
const ADDRESSES: readonly Record<string, string>[] = [
  {
    value: '123 Main St, Sunnyvale, CA 94085, USA',
    country: 'USA',
    admin_area_level_1: 'CA',
    admin_area_level_2: 'Santa Clara',
    locality: 'Sunnyvale',
    route: 'Main St',
    street_number: '123',
    postal_code: '94085',
  },
  {
    value: 'Mustamäe tee 3a, 10615 Tallinn, Estonia',
    country: 'Estonia',
    admin_area_level_1: 'Harju maakond',
    locality: 'Tallinn',
    route: 'Mustamäe tee',
    street_number: '3a',
    postal_code: '10615',
  },
]

/** A custom field key: Pipedrive names custom fields by a 40-character hash (https://pipedrive.readme.io/docs/pipedrive-api-v2-migration-guide). */
export const TIER_FIELD = 'd4de1c1518b4531717c676029a45911c340390a6'

export class PipedriveState {
  /** Tokens the company spent per UTC day (`YYYY-MM-DD`); a test may set or read it. */
  readonly spentTokens = new Map<string, number>()
  /** POST and PUT requests per API token (its user) per UTC day, keyed `YYYY-MM-DD|token` (`x-daily-requests-left`). */
  readonly postPutRequests = new Map<string, number>()
  /** The company's daily token budget; starts at the option, a test may change it. */
  dailyTokenBudget: number
  readonly persons = new Map<number, PersonRecord>()
  readonly userIds = [1001, 1002, 1003]
  readonly orgIds = [501, 502, 503, 504]
  /** Deals and the persons linked to them (a deal's person and its participants). */
  readonly dealPersons = new Map<number, Set<number>>()
  readonly apiTokens: Set<string>
  readonly calls = new Map<string, number[]>()
  /** Registered OAuth apps, with the scopes chosen for them in Developer Hub (`base` always among them). */
  readonly clients = new Map<
    string,
    { clientSecret: string; redirectUris: readonly string[]; scopes: readonly string[] }
  >()
  readonly codes = new Map<string, { clientId: string; redirectUri: string; issuedAt: number }>()
  readonly accessTokens = new Map<
    string,
    { clientId: string; expiresAt: number; scopes: readonly string[] }
  >()
  readonly refreshTokens = new Map<string, string>()
  readonly companyId = DEFAULT_COMPANY_ID
  readonly companyDomain = 'emulated'
  readonly hooks: PipedriveHooks
  private nextId: number

  constructor(readonly options: PipedriveStateOptions) {
    this.apiTokens = new Set(options.tokens)
    this.hooks = new PipedriveHooks(this.companyDomain, options.hookRetryDelaysMs)
    this.dailyTokenBudget = options.dailyTokenBudget
    const rnd = new SeededRandom(options.seed)
    const span = 60 * 24 * HOUR_MS
    let id = 1
    for (let i = 0; i < options.persons; i++) {
      const first = rnd.pick(FIRST)
      const last = rnd.pick(LAST)
      // Whole seconds: Pipedrive's times have no fraction.
      const addTime = Math.floor((options.untilMs - span + rnd.next() * span * 0.8) / 1000) * 1000
      const updateTime = Math.min(
        options.untilMs,
        addTime + Math.floor((rnd.next() * span * 0.2) / 1000) * 1000,
      )
      const person: PersonRecord = {
        id,
        name: `${first} ${last}`,
        ownerId: rnd.pick(this.userIds),
        orgId: rnd.chance(0.7) ? rnd.pick(this.orgIds) : null,
        emails: [{ value: `${first}.${last}.${id}@example.com`.toLowerCase(), primary: true, label: 'work' }],
        phones: rnd.chance(0.6)
          ? [
              {
                value: `+1 555 03${String(rnd.int(0, 99)).padStart(2, '0')}`,
                primary: true,
                label: rnd.pick(['work', 'mobile']),
              },
            ]
          : [],
        customFields: rnd.chance(0.5) ? { [TIER_FIELD]: rnd.pick(['gold', 'silver']) } : {},
        addTime,
        updateTime,
      }
      if (rnd.chance(0.5)) person.jobTitle = rnd.pick(['Engineer', 'Analyst', 'Director'])
      if (rnd.chance(0.4)) person.postalAddress = { ...rnd.pick(ADDRESSES) }
      this.persons.set(id, person)
      id += rnd.int(1, 2)
    }
    for (let d = 0; d < 6; d++) {
      const linked = new Set<number>()
      for (const p of this.persons.values()) if (rnd.chance(0.15)) linked.add(p.id)
      this.dealPersons.set(9000 + d, linked)
    }
    this.nextId = id + 50
  }

  /** Issues an OAuth token pair, as the token endpoint would (also for connections made from held tokens). */
  issueTokens(clientId: string, ttlSeconds: number) {
    const access = this.issueAccessToken(clientId, ttlSeconds)
    const refresh = `${randomBytes(8).toString('hex')}:${randomBytes(16).toString('hex')}`
    this.refreshTokens.set(refresh, clientId)
    return { access_token: access, refresh_token: refresh, expires_in: ttlSeconds }
  }

  /** An access token bound to its app's scopes ("access_token is bound to the scopes your app asked permissions for"). */
  issueAccessToken(clientId: string, ttlSeconds: number): string {
    const access = `v1u:${randomBytes(24).toString('base64url')}`
    const scopes = this.clients.get(clientId)?.scopes ?? DEFAULT_APP_SCOPES
    this.accessTokens.set(access, { clientId, expiresAt: Date.now() + ttlSeconds * 1000, scopes })
    return access
  }

  expireAccessToken(token: string): void {
    const t = this.accessTokens.get(token)
    if (t) t.expiresAt = Date.now() - 1
  }

  newPersonId(): number {
    return this.nextId++
  }

  /** A person that can be read: not deleted, or deleted less than 30 days ago. */
  readable(id: number, now = Date.now()): PersonRecord | undefined {
    const p = this.persons.get(id)
    if (!p) return undefined
    if (p.deletedAt !== undefined && now - p.deletedAt > DELETED_KEPT_MS) return undefined
    return p
  }

  livePersons(): PersonRecord[] {
    return [...this.persons.values()].filter((p) => p.deletedAt === undefined).sort((a, b) => a.id - b.id)
  }
}
