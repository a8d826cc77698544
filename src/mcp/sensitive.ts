import type { Sensitivity } from './tool.js'

/**
 * Keys that name personal data in provider records and nested objects, in any provider's spelling: the key
 * is compared lower-cased with `$`, `_`, `-` and spaces taken out, so PostHog's `$email`, Greenhouse's
 * `email_addresses`, BambooHR's `workEmail` and `dateOfBirth` and HubSpot's `mobilephone` are all caught.
 * Unigate's choice (Unified.to says only that personal or sensitive data is removed): contact details,
 * names, addresses and places, network addresses, identity numbers, birth dates, demographics, photos and
 * pay. Erring wide: an office's `city` in raw HR data goes too. These are the parts that make any key
 * personal wherever they appear in it; `PERSONAL_KEYS` the whole keys that are.
 */
const PERSONAL_PARTS =
  /email|phone|telephone|birth|socialsecurity|nationalid|passport|taxid|salary|compensation|payrate|geoip|useragent|avatar|photo|street|postalcode|postcode|zipcode|ipaddress/

const PERSONAL_KEYS = new Set([
  'name',
  'names',
  'firstname',
  'lastname',
  'middlename',
  'fullname',
  'displayname',
  'username',
  'preferredname',
  'preferredfirstname',
  'preferredlastname',
  'legalname',
  'nickname',
  'givenname',
  'familyname',
  'surname',
  'maidenname',
  'mobile',
  'fax',
  'address',
  'addresses',
  'address1',
  'address2',
  'address3',
  'addressline1',
  'addressline2',
  'addressline3',
  'city',
  'zip',
  'latitude',
  'longitude',
  'dob',
  'sin',
  'ssn',
  'ssnsin',
  'gender',
  'sex',
  'ethnicity',
  'race',
  'maritalstatus',
  'pronouns',
  'salutation',
  'ip',
])

/** A network address under its own name: `ip_city` and `ipCountry` (HubSpot's), `visitIp` (Matomo's), `client_ip`. */
const IP_KEY = /^\$?ip(?:[_-]|[A-Z]|$)|(?:[_-]ip|[_-]IP|[a-z]Ip|[a-z]IP)$/

export function isPersonalKey(key: string): boolean {
  const plain = key.toLowerCase().replace(/[$_\-\s]/g, '')
  return PERSONAL_KEYS.has(plain) || PERSONAL_PARTS.test(plain) || IP_KEY.test(key)
}

/**
 * An entry of an HRIS, ATS or CRM `metadata` list (`{id, slug, value}`: a provider's custom field) whose slug
 * names personal data: a custom `personal_email` or `emergencyContactPhone` carries it under `value`.
 */
function namesPersonalField(value: unknown): boolean {
  const slug = value && typeof value === 'object' ? (value as { slug?: unknown }).slug : undefined
  return typeof slug === 'string' && isPersonalKey(slug)
}

function byKey(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => !namesPersonalField(v)).map(byKey)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (!isPersonalKey(k)) out[k] = byKey(v)
    return out
  }
  return value
}

function record(value: unknown, sensitivity: Sensitivity): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return byKey(value)
  const hidden = new Set(sensitivity.fields)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (hidden.has(k)) continue
    if (sensitivity.byKeyEverywhere && isPersonalKey(k)) continue
    out[k] = byKey(v)
  }
  return out
}

/**
 * `hide_sensitive`: removes the model's personal fields (a visitor's email and name) from each record,
 * and personal keys from everything nested in it, `raw` included. Unified fields with an innocent
 * meaning (an event's `name`) stay: only the model decides at the top level.
 */
export function hideSensitive(result: unknown, sensitivity: Sensitivity): unknown {
  return Array.isArray(result) ? result.map((r) => record(r, sensitivity)) : record(result, sensitivity)
}
