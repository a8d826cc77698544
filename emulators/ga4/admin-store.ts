import { isTimeZone } from '../google/calendar.js'
import { GoogleApiError, invalidArgument } from '../google/errors.js'
import { type EmulatedProperty, FIRST_PROPERTY_ID, type Ga4Seed } from './data/seed.js'

/** The Admin API's state: accounts, properties (created, changed, trashed) and page tokens. */

const INDUSTRIES = new Set([
  'INDUSTRY_CATEGORY_UNSPECIFIED',
  'AUTOMOTIVE',
  'BUSINESS_AND_INDUSTRIAL_MARKETS',
  'FINANCE',
  'HEALTHCARE',
  'TECHNOLOGY',
  'TRAVEL',
  'OTHER',
  'ARTS_AND_ENTERTAINMENT',
  'BEAUTY_AND_FITNESS',
  'BOOKS_AND_LITERATURE',
  'FOOD_AND_DRINK',
  'GAMES',
  'HOBBIES_AND_LEISURE',
  'HOME_AND_GARDEN',
  'INTERNET_AND_TELECOM',
  'LAW_AND_GOVERNMENT',
  'NEWS',
  'ONLINE_COMMUNITIES',
  'PEOPLE_AND_SOCIETY',
  'PETS_AND_ANIMALS',
  'REAL_ESTATE',
  'REFERENCE',
  'SCIENCE',
  'SPORTS',
  'JOBS_AND_EDUCATION',
  'SHOPPING',
])
const PROPERTY_FIELDS = new Set([
  'name',
  'propertyType',
  'createTime',
  'updateTime',
  'parent',
  'displayName',
  'industryCategory',
  'timeZone',
  'currencyCode',
  'serviceLevel',
  'deleteTime',
  'expireTime',
  'account',
])
/**
 * updateMask paths that may change: snake_case field names, `*` for all; the rest are immutable or output
 * only (analytics_admin.proto UpdatePropertyRequest.update_mask; resources.proto Property field behaviours).
 */
const MUTABLE: Readonly<Record<string, keyof EmulatedProperty>> = {
  display_name: 'displayName',
  time_zone: 'timeZone',
  currency_code: 'currencyCode',
  industry_category: 'industryCategory',
}

/**
 * List pages: "If unspecified, at most 50 resources will be returned. The maximum value is 200; (higher
 * values will be coerced to the maximum)" (googleapis/googleapis@99b25248:google/analytics/admin/v1beta/
 * analytics_admin.proto, ListPropertiesRequest.page_size and the other List requests).
 */
export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 200
/** A trashed property is purged 35 days later (https://support.google.com/analytics/answer/6154772). */
const TRASH_DAYS = 35

export function pageSizeOf(value: unknown): number {
  if (value === undefined || value === '') return DEFAULT_PAGE_SIZE
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0)
    throw invalidArgument(`Invalid value at 'page_size' (TYPE_INT32), "${String(value)}"`)
  return n === 0 ? DEFAULT_PAGE_SIZE : Math.min(n, MAX_PAGE_SIZE)
}

/**
 * Property fields: display_name required, at most 100 UTF-16 code units; time_zone required, an IANA
 * zone; currency_code ISO 4217; industry_category one of the enum (googleapis/googleapis@75aa1b3b:
 * google/analytics/admin/v1beta/resources.proto, message Property, enum IndustryCategory). Unknown JSON
 * fields are refused, as Google's JSON transcoding does. The emulator's USD default for a property
 * created without currency_code is not documented.
 */
function validateFields(body: Record<string, unknown>): void {
  for (const key of Object.keys(body)) {
    if (!PROPERTY_FIELDS.has(key))
      throw invalidArgument(
        `Invalid JSON payload received. Unknown name "${key}" at 'property': Cannot find field.`,
      )
  }
  if (body.timeZone !== undefined && (typeof body.timeZone !== 'string' || !isTimeZone(body.timeZone))) {
    throw invalidArgument(`property.time_zone: '${String(body.timeZone)}' is not a valid time zone.`)
  }
  if (body.currencyCode !== undefined && !/^[A-Z]{3}$/.test(String(body.currencyCode))) {
    throw invalidArgument(
      `property.currency_code: '${String(body.currencyCode)}' is not a valid currency code.`,
    )
  }
  if (body.industryCategory !== undefined && !INDUSTRIES.has(String(body.industryCategory))) {
    throw invalidArgument(
      `Invalid value at 'property.industry_category' (type.googleapis.com/google.analytics.admin.v1beta.IndustryCategory), "${String(body.industryCategory)}"`,
    )
  }
  if (
    body.displayName !== undefined &&
    (typeof body.displayName !== 'string' || body.displayName.length > 100)
  ) {
    throw invalidArgument('property.display_name must be a string of at most 100 characters.')
  }
}

export class AdminStore {
  readonly properties: EmulatedProperty[]
  private nextId: number

  constructor(
    readonly seed: Ga4Seed,
    private readonly now: () => number,
  ) {
    this.properties = seed.properties.map((p) => ({ ...p }))
    this.nextId = FIRST_PROPERTY_ID + this.properties.length + 100_000
  }

  accountExists(name: string): boolean {
    return this.seed.accounts.some((a) => a.name === name)
  }

  find(name: string): EmulatedProperty | undefined {
    return this.properties.find((p) => p.name === name)
  }

  /**
   * The `filter` of properties.list: required, `parent:`, `ancestor:` or `firebase_project:`
   * (https://developers.google.com/analytics/devguides/config/admin/v1/rest/v1beta/properties/list).
   */
  filtered(filter: unknown, showDeleted: boolean): EmulatedProperty[] {
    if (typeof filter !== 'string' || filter === '') {
      throw invalidArgument('filter must be set, e.g. "parent:accounts/123" or "ancestor:accounts/123".')
    }
    const m = /^(parent|ancestor|firebase_project):(.+)$/.exec(filter.trim())
    if (!m) throw invalidArgument(`Invalid filter: "${filter}".`)
    const [, kind, value] = m as unknown as [string, string, string]
    if (kind !== 'firebase_project' && !/^(accounts|properties)\/\d+$/.test(value)) {
      throw invalidArgument(
        `Invalid filter: "${filter}". Expected ${kind}:accounts/{id} or ${kind}:properties/{id}.`,
      )
    }
    const live = this.properties.filter((p) => showDeleted || !p.deleteTime)
    if (kind === 'parent') return live.filter((p) => p.parent === value)
    if (kind === 'ancestor') return live.filter((p) => p.account === value || p.parent === value)
    return []
  }

  create(body: Record<string, unknown>): EmulatedProperty {
    validateFields(body)
    const parent = body.parent
    if (typeof parent !== 'string' || !/^accounts\/\d+$/.test(parent)) {
      throw invalidArgument('property.parent must be set to an account, such as accounts/123.')
    }
    if (!this.accountExists(parent)) throw new GoogleApiError(403, 'The caller does not have permission')
    if (typeof body.displayName !== 'string' || body.displayName === '')
      throw invalidArgument('property.display_name must be set.')
    if (typeof body.timeZone !== 'string') throw invalidArgument('property.time_zone must be set.')
    const time = new Date(this.now()).toISOString()
    const property: EmulatedProperty = {
      name: `properties/${this.nextId++}`,
      parent,
      account: parent,
      displayName: body.displayName,
      timeZone: body.timeZone,
      currencyCode: typeof body.currencyCode === 'string' ? body.currencyCode : 'USD',
      industryCategory:
        typeof body.industryCategory === 'string' ? body.industryCategory : 'INDUSTRY_CATEGORY_UNSPECIFIED',
      propertyType: 'PROPERTY_TYPE_ORDINARY',
      serviceLevel: 'GOOGLE_ANALYTICS_STANDARD',
      createTime: time,
      updateTime: time,
    }
    this.properties.push(property)
    return property
  }

  update(name: string, mask: unknown, body: Record<string, unknown>): EmulatedProperty {
    const property = this.live(name)
    if (typeof mask !== 'string' || mask.trim() === '') throw invalidArgument('update_mask is required.')
    validateFields(body)
    const paths = mask.trim() === '*' ? Object.keys(MUTABLE) : mask.split(',').map((p) => p.trim())
    for (const path of paths) {
      const field = MUTABLE[path]
      if (!field) {
        throw invalidArgument(
          `Field '${path}' in the update mask is not valid or cannot be updated. Field names are snake_case.`,
        )
      }
      const camel = path.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
      const value = body[camel]
      if (field === 'displayName' && (typeof value !== 'string' || value === '')) {
        throw invalidArgument('property.display_name must be set.')
      }
      if (field === 'timeZone' && typeof value !== 'string')
        throw invalidArgument('property.time_zone must be set.')
      if (value !== undefined) (property as unknown as Record<string, unknown>)[field] = value
    }
    property.updateTime = new Date(this.now()).toISOString()
    return property
  }

  /**
   * Properties go to the trash (deleteTime, expireTime 35 days on); deleting a trashed one is NOT_FOUND
   * (https://developers.google.com/analytics/devguides/config/admin/v1/rest/v1beta/properties/delete).
   */
  remove(name: string): EmulatedProperty {
    const property = this.live(name)
    property.deleteTime = new Date(this.now()).toISOString()
    property.expireTime = new Date(this.now() + TRASH_DAYS * 86_400_000).toISOString()
    return property
  }

  private live(name: string): EmulatedProperty {
    const property = this.find(name)
    if (!property || property.deleteTime) throw new GoogleApiError(404, `Property ${name} not found.`)
    return property
  }
}
