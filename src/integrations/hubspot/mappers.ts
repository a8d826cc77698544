import { isoTextOf } from '../../engine/dates.js'
import { listedInOrder, putShaped } from '../../engine/fields.js'
import { badRequest } from '../../errors.js'
import { modelOf, type UnifiedRecord } from '../../models/index.js'
import type { WriteBody } from '../types.js'
import type { HubspotAssociatedIds, HubspotContact } from './types.js'

const text = (value: string | null | undefined): string | undefined =>
  value === null || value === undefined || value.trim() === '' ? undefined : value

/**
 * HubSpot answers ISO-8601 instants (`createdAt`, `updatedAt`: CRM/Contacts v3 spec, format date-time),
 * written `2024-05-02T10:30:00.123Z`: that form is already the text the response writes (isoTextOf), so no
 * Date is parsed and written back per contact; any other form becomes a Date, which shaping writes the same.
 */
function instant(value: string | undefined): string | Date | undefined {
  if (!value) return undefined
  const text = isoTextOf(value)
  if (text !== undefined) return text
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

/** Ids of one association type; HubSpot lists a pair once per association type (labelled, unlabelled). */
function associatedIds(list: HubspotAssociatedIds | undefined): string[] | undefined {
  if (!list) return undefined
  return [...new Set(list.results.map((r) => String(r.id)))]
}

type ContactProperties = HubspotContact['properties']

/** Reads one unified field of a contact; `p` is its properties, `rawNames` the `raw.<name>` names asked. */
type ContactFieldReader = (
  contact: HubspotContact,
  p: ContactProperties,
  rawNames: readonly string[],
) => unknown

function nameOf(p: ContactProperties): string | undefined {
  const name = [text(p.firstname), text(p.lastname)].filter(Boolean).join(' ')
  return name === '' ? undefined : name
}

function unifiedEmailsOf(p: ContactProperties): { email: string }[] | undefined {
  if (!('email' in p) && !('hs_additional_emails' in p)) return undefined
  return [
    ...(text(p.email) ? [{ email: p.email as string }] : []),
    // `hs_additional_emails` is a semicolon-separated list (HubSpot's default contact properties).
    ...(text(p.hs_additional_emails)
      ?.split(';')
      .map((e) => e.trim())
      .filter(Boolean)
      .map((email) => ({ email })) ?? []),
  ]
}

function unifiedTelephonesOf(p: ContactProperties): { telephone: string; type?: string }[] | undefined {
  if (!('phone' in p) && !('mobilephone' in p) && !('fax' in p)) return undefined
  return [
    ...(text(p.phone) ? [{ telephone: p.phone as string }] : []),
    ...(text(p.mobilephone) ? [{ telephone: p.mobilephone as string, type: 'MOBILE' }] : []),
    ...(text(p.fax) ? [{ telephone: p.fax as string, type: 'FAX' }] : []),
  ]
}

function unifiedAddressOf(p: ContactProperties): Record<string, string | undefined> | undefined {
  const address = {
    address1: text(p.address),
    city: text(p.city),
    region: text(p.state),
    postal_code: text(p.zip),
    country: text(p.country),
  }
  return Object.values(address).some((v) => v !== undefined) ? address : undefined
}

/** `raw` is the contact as HubSpot sent it, plus each `raw.<name>` property at its top, where `fields=raw.<name>` picks it. */
function rawOf(contact: HubspotContact, p: ContactProperties, rawNames: readonly string[]) {
  const raw: Record<string, unknown> = { ...contact }
  for (const n of rawNames) if (p[n] !== undefined && !(n in raw)) raw[n] = p[n]
  return raw
}

/**
 * How each unified contact field is read from a HubSpot contact: the one definition behind the full mapping
 * (`fromHubspotContact`) and the mapping of only the fields a list asked for (`hubspotContactMapperFor`).
 */
const CONTACT_FIELD_READERS: Readonly<Record<string, ContactFieldReader>> = {
  id: (c) => String(c.id),
  created_at: (c) => instant(c.createdAt),
  updated_at: (c) => instant(c.updatedAt),
  first_name: (_c, p) => text(p.firstname),
  last_name: (_c, p) => text(p.lastname),
  name: (_c, p) => nameOf(p),
  emails: (_c, p) => unifiedEmailsOf(p),
  telephones: (_c, p) => unifiedTelephonesOf(p),
  company: (_c, p) => text(p.company),
  title: (_c, p) => text(p.jobtitle),
  address: (_c, p) => unifiedAddressOf(p),
  link_urls: (_c, p) => (text(p.website) ? [p.website as string] : undefined),
  user_id: (_c, p) => text(p.hubspot_owner_id),
  company_ids: (c) => associatedIds(c.associations?.companies),
  deal_ids: (c) => associatedIds(c.associations?.deals),
  raw: rawOf,
}

export type ContactMapper = (contact: HubspotContact) => UnifiedRecord

/**
 * A mapping that builds only the `listed` unified fields (every field when undefined), and `raw` only when
 * it is listed or a `raw.<name>` is asked; made once per request. The response leaves out every other field
 * (the engine's recordShaper), so building them, the second date and the copy of the contact in `raw`
 * above all, was work nobody read. Each field built is what `fromHubspotContact` builds.
 */
export function hubspotContactMapperFor(
  listed: ReadonlySet<string> | undefined,
  rawNames: readonly string[] = [],
): ContactMapper {
  const wanted = (field: string) => !listed || listed.has(field) || (field === 'raw' && rawNames.length > 0)
  const readers = Object.entries(CONTACT_FIELD_READERS).filter(([field]) => wanted(field))
  return (contact) => {
    const p = contact.properties ?? {}
    const record: Record<string, unknown> = {}
    for (const [field, read] of readers) record[field] = read(contact, p, rawNames)
    return record as UnifiedRecord
  }
}

const CONTACT_MODEL = modelOf('crm_contact')!

/**
 * The `listed` fields of a contact (neither `raw` nor a `raw.<name>` asked), built as the response sends them
 * (in the model's order, each cleaned or left out: the engine's `putShaped`), so that a page of them is a
 * `shapedPage` the engine sends without copying each record again. Each value is what
 * `hubspotContactMapperFor` reads.
 */
export function shapedContactMapperFor(listed: ReadonlySet<string>): ContactMapper {
  const known = shapedMappersOfListed.get(listed)
  if (known) return known
  const mapper = newShapedContactMapper(listed)
  shapedMappersOfListed.set(listed, mapper)
  return mapper
}

/**
 * By listed set: parseFields answers one set per `fields` text, so a caller's usual `fields` makes its mapper
 * once, not per page, and every page of it runs the same function.
 */
const shapedMappersOfListed = new WeakMap<ReadonlySet<string>, ContactMapper>()

function newShapedContactMapper(listed: ReadonlySet<string>): ContactMapper {
  const fields = listedInOrder(CONTACT_MODEL, listed).filter((field) =>
    Object.hasOwn(CONTACT_FIELD_READERS, field),
  )
  const readers = fields.map((field) => CONTACT_FIELD_READERS[field]!)
  return (contact) => {
    const p = contact.properties ?? {}
    const record: Record<string, unknown> = {}
    for (let i = 0; i < fields.length; i++) putShaped(record, fields[i]!, readers[i]!(contact, p, []))
    return record as UnifiedRecord
  }
}

/**
 * A HubSpot contact as a unified contact, every field. `raw` is the contact as HubSpot sent it; a property
 * asked with `raw.<name>` is also put at the top of `raw` under its name, where `fields=raw.<name>` picks it.
 */
export function fromHubspotContact(contact: HubspotContact, rawNames: readonly string[] = []): UnifiedRecord {
  return hubspotContactMapperFor(undefined, rawNames)(contact)
}

/** Fields HubSpot contacts have no property for, or that this API cannot set. */
const UNWRITABLE: Readonly<Record<string, string>> = {
  image_url: "HubSpot sets a contact's avatar itself",
  department: 'HubSpot contacts have no department property',
  metadata: "send custom properties as raw.properties ({raw: {properties: {<internal name>: '<value>'}}})",
}

const ADDRESS_PROPERTIES: Readonly<Record<string, string>> = {
  address1: 'address',
  city: 'city',
  region: 'state',
  postal_code: 'zip',
  country: 'country',
}

/** The unified telephone type onto the one HubSpot property holding it (no type: the main phone). */
const PHONE_PROPERTIES: Readonly<Record<string, string>> = {
  WORK: 'phone',
  MOBILE: 'mobilephone',
  FAX: 'fax',
}

function emailsOf(value: unknown): string {
  const list = value as { email?: string }[]
  if (list.length > 1) {
    throw badRequest(
      'emails: HubSpot keeps one email per contact through this API (additional emails are read-only); send at most one',
    )
  }
  return list[0]?.email ?? ''
}

function telephonesOf(value: unknown, out: Record<string, string>): void {
  for (const phone of value as { telephone: string; type?: string }[]) {
    const property = PHONE_PROPERTIES[phone.type ?? 'WORK']
    if (!property) {
      throw badRequest(
        `telephones: HubSpot has no ${phone.type} number; use type WORK (or none), MOBILE or FAX`,
      )
    }
    if (out[property] !== undefined) {
      throw badRequest(`telephones: HubSpot keeps one ${phone.type ?? 'WORK'} number; send one of each type`)
    }
    out[property] = phone.telephone
  }
}

function addressOf(value: unknown, out: Record<string, string>): void {
  for (const [key, v] of Object.entries(value as Record<string, string | undefined>)) {
    if (v === undefined) continue
    const property = ADDRESS_PROPERTIES[key]
    if (!property) {
      throw badRequest(
        `address.${key}: HubSpot contacts have no such property; use ${Object.keys(ADDRESS_PROPERTIES).join(', ')}`,
      )
    }
    out[property] = v
  }
}

/** `raw.properties` carries HubSpot properties by internal name; values become strings, as HubSpot takes them. */
function rawPropertiesOf(raw: unknown): Record<string, string> {
  if (raw === undefined) return {}
  const r = raw as Record<string, unknown>
  const other = Object.keys(r).filter((k) => k !== 'properties')
  if (other.length > 0) {
    throw badRequest(`raw.${other[0]}: HubSpot contacts take only raw.properties on write`)
  }
  const props = r.properties
  if (props === undefined) return {}
  if (!props || typeof props !== 'object' || Array.isArray(props)) {
    throw badRequest('raw.properties: must be an object of HubSpot property names to values')
  }
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(props)) {
    if (v !== null && typeof v === 'object')
      throw badRequest(`raw.properties.${k}: must be a string, number or boolean`)
    out[k] = v === null ? '' : String(v)
  }
  return out
}

/**
 * HubSpot keeps first and last name, and a contact's `name` is made of them: a `name` sent beside the halves
 * that says something else was dropped unseen. Refused unless both halves are given and make that name, as
 * Pipedrive's connector refuses it (src/integrations/pipedrive/mappers.ts, nameOf).
 */
function refuseNameBesideHalves(body: WriteBody): void {
  if (body.name === undefined || (body.first_name === undefined && body.last_name === undefined)) return
  const half = (v: unknown) => (typeof v === 'string' ? v.trim() : '')
  const joined = [half(body.first_name), half(body.last_name)].filter((h) => h !== '').join(' ')
  const both = body.first_name !== undefined && body.last_name !== undefined
  if (!both || typeof body.name !== 'string' || joined !== body.name.trim()) {
    throw badRequest(
      `name: HubSpot makes a contact's name of first_name and last_name; send name alone, or both halves (with name only if it is the two joined: '${joined}')`,
    )
  }
}

/**
 * A unified contact body as HubSpot properties (all strings: `SimplePublicObjectInput.properties`). What
 * HubSpot cannot hold is refused naming the field, never dropped; `name` fills first and last name only
 * when neither is given (split at its first space).
 */
export function toHubspotContactProperties(body: WriteBody): Record<string, string> {
  for (const [field, why] of Object.entries(UNWRITABLE)) {
    if (body[field] !== undefined) throw badRequest(`${field}: cannot be written to HubSpot; ${why}`)
  }
  const out: Record<string, string> = rawPropertiesOf(body.raw)
  const set = (property: string, value: unknown) => {
    if (value !== undefined) out[property] = String(value)
  }
  set('firstname', body.first_name)
  set('lastname', body.last_name)
  refuseNameBesideHalves(body)
  if (typeof body.name === 'string' && body.first_name === undefined && body.last_name === undefined) {
    const at = body.name.trim().indexOf(' ')
    out.firstname = at < 0 ? body.name.trim() : body.name.trim().slice(0, at)
    out.lastname =
      at < 0
        ? ''
        : body.name
            .trim()
            .slice(at + 1)
            .trim()
  }
  if (body.emails !== undefined) out.email = emailsOf(body.emails)
  if (body.telephones !== undefined) telephonesOf(body.telephones, out)
  if (body.address !== undefined) addressOf(body.address, out)
  if (body.link_urls !== undefined) {
    const urls = body.link_urls as string[]
    if (urls.length > 1)
      throw badRequest('link_urls: HubSpot keeps one website per contact; send at most one')
    out.website = urls[0] ?? ''
  }
  set('company', body.company)
  set('jobtitle', body.title)
  set('hubspot_owner_id', body.user_id)
  return out
}

/**
 * HubSpot-defined association type ids from a contact (CRM associations v4, "Association type ID values":
 * https://developers.hubspot.com/docs/guides/api/crm/associations/associations-v4): contact to company 279
 * (unlabelled), contact to deal 4.
 */
export const CONTACT_TO_COMPANY = 279
export const CONTACT_TO_DEAL = 4

/** `associations` of a create (`PublicAssociationsForObject[]`) from `company_ids` and `deal_ids`. */
export function toHubspotAssociations(body: WriteBody): Record<string, unknown>[] {
  const of = (ids: unknown, typeId: number) =>
    ((ids as string[] | undefined) ?? []).map((id) => ({
      to: { id },
      types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: typeId }],
    }))
  return [...of(body.company_ids, CONTACT_TO_COMPANY), ...of(body.deal_ids, CONTACT_TO_DEAL)]
}
