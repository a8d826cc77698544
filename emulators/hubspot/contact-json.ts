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
 * A v3 contact read answers at most 100 associations per type and record; past them `paging.next` points
 * at the rest (https://developers.hubspot.com/changelog/announcing-a-change-to-how-v3-crm-apis-return-association-data;
 * HubSpot/hubspot-api-nodejs#29: "paging data that will be returned when there are more than 100
 * association results"; `CollectionResponseAssociatedId.paging` in the contacts spec).
 */
export const V3_ASSOCIATIONS_PER_RECORD = 100

/** The opaque cursor of an association page: here the base64 of the offset. */
const associationCursor = (offset: number) => Buffer.from(`assoc-${offset}`).toString('base64')

/**
 * Association type names as the v3 read answers them: the contact's primary company (the first here)
 * shows under both the labelled and the unlabelled type, other companies only unlabelled (CRM
 * associations v4 guide, "Association type ID values": 1 primary, 279 unlabelled).
 */
function associationsJson(c: ContactRecord, asked: readonly string[]) {
  const out: Record<string, { results: { id: string; type: string }[]; paging?: unknown }> = {}
  const page = (all: { id: string; type: string }[], objectType: string) => ({
    results: all.slice(0, V3_ASSOCIATIONS_PER_RECORD),
    ...(all.length > V3_ASSOCIATIONS_PER_RECORD
      ? {
          paging: {
            next: {
              after: associationCursor(V3_ASSOCIATIONS_PER_RECORD),
              link: `/crm/v3/objects/contacts/${c.id}/associations/${objectType}?after=${associationCursor(V3_ASSOCIATIONS_PER_RECORD)}`,
            },
          },
        }
      : {}),
  })
  for (const type of asked) {
    if ((type === 'companies' || type === 'company') && c.companies.size > 0) {
      out.companies = page(
        [...c.companies].flatMap((id, i) => [
          ...(i === 0 ? [{ id, type: 'contact_to_company' }] : []),
          { id, type: 'contact_to_company_unlabeled' },
        ]),
        'companies',
      )
    }
    if ((type === 'deals' || type === 'deal') && c.deals.size > 0) {
      out.deals = page(
        [...c.deals].map((id) => ({ id, type: 'contact_to_deal' })),
        'deals',
      )
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
