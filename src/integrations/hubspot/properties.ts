/**
 * Which HubSpot contact properties each unified field reads, so a list asks `properties=` for only what the
 * caller wants (HubSpot answers only the properties named, plus a default few: CRM/Contacts v3 spec,
 * `GET /crm/v3/objects/contacts`, parameter `properties`). Names are HubSpot's default contact properties
 * (https://knowledge.hubspot.com/properties/hubspots-default-contact-properties).
 */
export const PROPERTIES_OF_FIELD: Readonly<Record<string, readonly string[]>> = {
  first_name: ['firstname'],
  last_name: ['lastname'],
  name: ['firstname', 'lastname'],
  emails: ['email', 'hs_additional_emails'],
  telephones: ['phone', 'mobilephone', 'fax'],
  company: ['company'],
  title: ['jobtitle'],
  address: ['address', 'city', 'state', 'zip', 'country'],
  link_urls: ['website'],
  user_id: ['hubspot_owner_id'],
  created_at: ['createdate'],
  updated_at: ['lastmodifieddate'],
}

/** The association types (object type names of `associations=`) each unified field reads. */
export const ASSOCIATIONS_OF_FIELD: Readonly<Record<string, 'companies' | 'deals'>> = {
  company_ids: 'companies',
  deal_ids: 'deals',
}

/** Unified sort fields and the contact property HubSpot's search sorts by. */
export const SORT_PROPERTIES: Readonly<Record<string, string>> = {
  created_at: 'createdate',
  updated_at: 'lastmodifieddate',
  first_name: 'firstname',
  last_name: 'lastname',
  company: 'company',
  title: 'jobtitle',
}

const ALL_FIELDS = Object.keys(PROPERTIES_OF_FIELD)

export interface ContactAsk {
  /** The `properties=` list: every property the wanted fields read, then the `raw.<name>` ones. */
  readonly properties: string[]
  /** The association types to ask for (`associations=`). */
  readonly associations: ('companies' | 'deals')[]
}

/**
 * What to ask HubSpot for, given the unified fields listed (undefined: every field) and the `raw.<name>`
 * names (HubSpot property names). The whole `raw` asks for every mapped property, as without `fields`.
 */
export function contactAsk(listed: ReadonlySet<string> | undefined, rawNames: readonly string[]): ContactAsk {
  const everything = !listed || listed.has('raw')
  const fields = everything ? ALL_FIELDS : [...listed].filter((f) => f in PROPERTIES_OF_FIELD)
  const properties = new Set(fields.flatMap((f) => PROPERTIES_OF_FIELD[f] ?? []))
  for (const name of rawNames) properties.add(name)
  const associations = Object.entries(ASSOCIATIONS_OF_FIELD)
    .filter(([field]) => everything || listed.has(field))
    .map(([, type]) => type)
  return { properties: [...properties], associations }
}
