import { type ContactRecord, DEFAULT_PROPERTIES, READ_ONLY_PROPERTIES, WRITABLE_PROPERTIES } from './state.js'

const KNOWN = new Set<string>([...WRITABLE_PROPERTIES, ...READ_ONLY_PROPERTIES])

/** A property's value as HubSpot stores it: every value a string; timestamps ISO-8601 with milliseconds. */
export function propertyValue(c: ContactRecord, name: string): string | undefined {
  if (name === 'hs_object_id') return c.id
  if (name === 'createdate') return new Date(c.createdAt).toISOString()
  if (name === 'lastmodifieddate') return new Date(c.updatedAt).toISOString()
  return c.properties[name]
}

/**
 * `properties` as HubSpot answers them: the names asked (or the defaults), unknown names ignored, known but
 * unset ones as null ("If any of the specified properties are not present on the requested object(s), they
 * will be ignored": HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json, parameter `properties`); `hs_object_id`, `createdate` and
 * `lastmodifieddate` always.
 */
export function propertiesJson(
  c: ContactRecord,
  asked: readonly string[] | undefined,
): Record<string, string | null> {
  const names = new Set([
    ...(asked && asked.length > 0 ? asked : DEFAULT_PROPERTIES),
    'hs_object_id',
    'createdate',
    'lastmodifieddate',
  ])
  const out: Record<string, string | null> = {}
  for (const name of names) {
    if (!KNOWN.has(name)) continue
    out[name] = propertyValue(c, name) ?? null
  }
  return out
}

/**
 * Association type names as the v3 read answers them: a contact's primary company shows under both the
 * labelled and the unlabelled type (https://developers.hubspot.com/docs/guides/api/crm/associations/associations-v4, "Association type ID values").
 */
function associationsJson(c: ContactRecord, asked: readonly string[]) {
  const out: Record<string, { results: { id: string; type: string }[] }> = {}
  for (const type of asked) {
    if ((type === 'companies' || type === 'company') && c.companies.size > 0) {
      out.companies = {
        results: [...c.companies].flatMap((id) => [
          { id, type: 'contact_to_company' },
          { id, type: 'contact_to_company_unlabeled' },
        ]),
      }
    }
    if ((type === 'deals' || type === 'deal') && c.deals.size > 0) {
      out.deals = { results: [...c.deals].map((id) => ({ id, type: 'contact_to_deal' })) }
    }
  }
  return out
}

/** `SimplePublicObjectWithAssociations` (HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json); `associations` only when some were asked and exist. */
export function contactJson(
  c: ContactRecord,
  properties: readonly string[] | undefined,
  associations: readonly string[] = [],
): Record<string, unknown> {
  const assoc = associationsJson(c, associations)
  return {
    id: c.id,
    properties: propertiesJson(c, properties),
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
    archived: c.archivedAt !== undefined,
    ...(c.archivedAt !== undefined ? { archivedAt: new Date(c.archivedAt).toISOString() } : {}),
    ...(Object.keys(assoc).length > 0 ? { associations: assoc } : {}),
  }
}

/** `properties=a,b` (comma-joined, or repeated: `style: form, explode: true` in HubSpot/HubSpot-public-api-spec-collection@99893791383:PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json). */
export function listParam(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined
  return (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
}
