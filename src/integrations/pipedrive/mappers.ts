import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { WriteBody } from '../types.js'
import type { PipedriveChannel, PipedrivePerson, PipedrivePostalAddress } from './types.js'

const text = (v: string | null | undefined) =>
  v === null || v === undefined || v.trim() === '' ? undefined : v

/** Pipedrive v2 times are RFC 3339 (API v2 migration guide, "General API Changes"). */
function instant(value: string | null | undefined): Date | undefined {
  if (!value) return undefined
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? undefined : d
}

/** Pipedrive's channel labels onto unified types; another label passes on upper-cased (open enums). */
const EMAIL_TYPES: Readonly<Record<string, string>> = { work: 'WORK', home: 'HOME', other: 'OTHER' }
const PHONE_TYPES: Readonly<Record<string, string>> = {
  work: 'WORK',
  home: 'HOME',
  mobile: 'MOBILE',
  other: 'OTHER',
}

function typed(label: string | undefined, types: Readonly<Record<string, string>>): string | undefined {
  if (!label) return undefined
  return types[label.toLowerCase()] ?? label.toUpperCase()
}

/** Primary first, empty values (Pipedrive lists `{value: ""}` for a person without one) left out. */
function channels(list: PipedriveChannel[] | undefined): PipedriveChannel[] {
  return [...(list ?? [])]
    .filter((c) => text(c.value) !== undefined)
    .sort((a, b) => Number(!!b.primary) - Number(!!a.primary))
}

/** Custom fields as unified metadata: the field key is both id and slug; compound values stay objects. */
function metadataOf(fields: PipedrivePerson['custom_fields']) {
  const out = []
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value === null || value === undefined) continue
    out.push({ id: key, slug: key, value })
  }
  return out.length > 0 ? out : undefined
}

/**
 * A contact-sync postal address by its parts: locality, first-level area, postal code, country (a name, so
 * not `country_code`). The street line is left out: Pipedrive gives `route` and `street_number` apart and
 * their order depends on the country, and its formatted `value` is the whole address, not a street line.
 */
function addressOf(a: PipedrivePostalAddress | null | undefined) {
  if (!a) return undefined
  const address = {
    city: text(a.locality),
    region: text(a.admin_area_level_1),
    postal_code: text(a.postal_code),
    country: text(a.country),
  }
  return Object.values(address).some((v) => v !== undefined) ? address : undefined
}

export function fromPipedrivePerson(person: PipedrivePerson): UnifiedRecord {
  return {
    id: String(person.id),
    created_at: instant(person.add_time),
    updated_at: instant(person.update_time),
    name: text(person.name),
    first_name: text(person.first_name),
    last_name: text(person.last_name),
    emails: person.emails
      ? channels(person.emails).map((e) => ({ email: e.value, type: typed(e.label, EMAIL_TYPES) }))
      : undefined,
    telephones: person.phones
      ? channels(person.phones).map((p) => ({ telephone: p.value, type: typed(p.label, PHONE_TYPES) }))
      : undefined,
    title: text(person.job_title),
    address: addressOf(person.postal_address),
    company_ids: person.org_id ? [String(person.org_id)] : person.org_id === null ? [] : undefined,
    user_id: person.owner_id ? String(person.owner_id) : undefined,
    metadata: metadataOf(person.custom_fields),
    raw: person,
  }
}

/** Pipedrive ids are integers, and v2 refuses a string where a number belongs (migration guide). */
function idNumber(field: string, value: unknown): number {
  const s = String(value)
  if (!/^\d+$/.test(s))
    throw badRequest(`${field}: '${s}' is not a Pipedrive id; Pipedrive ids are whole numbers`)
  return Number(s)
}

const UNWRITABLE: Readonly<Record<string, string>> = {
  address: 'a postal address is a custom or contact-sync field in Pipedrive; send it as metadata',
  title: 'a job title is a contact-sync field in Pipedrive',
  department: 'Pipedrive persons have no department',
  image_url: 'a picture is uploaded separately in Pipedrive',
  link_urls: 'Pipedrive persons have no links',
  deal_ids: 'a person is linked to a deal from the deal (its person_id or participants)',
  company: "Pipedrive links an organization by id; send company_ids: ['<org id>']",
}

const EMAIL_LABELS: Readonly<Record<string, string>> = { WORK: 'work', HOME: 'home', OTHER: 'other' }
const PHONE_LABELS: Readonly<Record<string, string>> = {
  WORK: 'work',
  HOME: 'home',
  MOBILE: 'mobile',
  OTHER: 'other',
}

function labelled(
  field: string,
  list: { value: string; type?: string }[],
  labels: Readonly<Record<string, string>>,
): PipedriveChannel[] {
  return list.map((c, i) => {
    const label = c.type === undefined ? 'work' : labels[c.type]
    if (!label) {
      throw badRequest(`${field}: Pipedrive has no ${c.type} label; use ${Object.keys(labels).join(', ')}`)
    }
    return { value: c.value, primary: i === 0, label }
  })
}

/**
 * The name of a write. Pipedrive's v2 migration guide says a person takes `name`, or both `first_name` and
 * `last_name`, keeping the halves as given and making `name` of them ("Either `name` or both `first_name` and
 * `last_name` must be provided ... Empty strings are accepted for `first_name` and `last_name`, but both can
 * not be empty strings at the same time", the same for PATCH:
 * https://pipedrive.readme.io/docs/pipedrive-api-v2-migration-guide, "POST /api/v1/persons to POST
 * /api/v2/persons", "PUT /api/v1/persons/:id to PATCH /api/v2/persons/:id"), while its v2 OpenAPI description
 * names `name` only (pipedrive/client-nodejs, src/versions/v2/models/add-person-request.ts). So the halves a
 * caller gives go as halves and, joined, as `name` too: a Pipedrive that reads the halves keeps "Mary Ann" as
 * the first name (joined alone, it came back "Mary"), one that reads only `name` still gets the whole name.
 * A missing half is '' where `name` or a create shows it to be empty.
 */
function nameOf(body: WriteBody, creating: boolean): Record<string, string> {
  const given = [body.first_name, body.last_name].filter((v) => v !== undefined)
  if (given.length === 0) {
    if (body.name === undefined) {
      if (creating)
        throw badRequest('name: Pipedrive needs a name (or first_name/last_name) to create a person')
      return {}
    }
    if (typeof body.name !== 'string' || body.name.trim() === '')
      throw badRequest('name: Pipedrive needs a name that is not empty')
    return { name: body.name }
  }
  const first = typeof body.first_name === 'string' ? body.first_name.trim() : ''
  const last = typeof body.last_name === 'string' ? body.last_name.trim() : ''
  const joined = [first, last].filter((half) => half !== '').join(' ')
  // Pipedrive keeps `name` as the halves joined, so halves that say something else than `name` would be lost.
  if (typeof body.name === 'string' && joined !== body.name.trim()) {
    throw badRequest(
      `first_name, last_name: Pipedrive makes the name of the halves; '${joined}' differs from name '${body.name}', send one or the other`,
    )
  }
  // An update of one half would set the other to '' unseen: only `name` beside it shows that is meant.
  if (!creating && given.length === 1 && typeof body.name !== 'string') {
    throw badRequest(
      'first_name, last_name: Pipedrive changes a name from both halves (or name), so an update sends both, not one',
    )
  }
  if (joined === '')
    throw badRequest('first_name, last_name: Pipedrive refuses a name whose halves are both empty')
  return { name: joined, first_name: first, last_name: last }
}

/** A unified contact body as a Pipedrive v2 person (`AddPersonRequest`, with the name as `nameOf` sends it). */
export function toPipedrivePerson(body: WriteBody, creating: boolean): Record<string, unknown> {
  for (const [field, why] of Object.entries(UNWRITABLE)) {
    if (body[field] !== undefined) throw badRequest(`${field}: cannot be written to Pipedrive; ${why}`)
  }
  if (body.raw !== undefined) throw badRequest('raw: Pipedrive persons take unified fields and metadata only')
  const out: Record<string, unknown> = { ...nameOf(body, creating) }
  if (body.emails !== undefined) {
    out.emails = labelled(
      'emails',
      (body.emails as { email: string; type?: string }[]).map((e) => ({ value: e.email, type: e.type })),
      EMAIL_LABELS,
    )
  }
  if (body.telephones !== undefined) {
    out.phones = labelled(
      'telephones',
      (body.telephones as { telephone: string; type?: string }[]).map((t) => ({
        value: t.telephone,
        type: t.type,
      })),
      PHONE_LABELS,
    )
  }
  if (body.user_id !== undefined) out.owner_id = idNumber('user_id', body.user_id)
  if (body.company_ids !== undefined) {
    const ids = body.company_ids as string[]
    if (ids.length > 1)
      throw badRequest('company_ids: a Pipedrive person belongs to one organization; send at most one id')
    out.org_id = ids[0] === undefined ? null : idNumber('company_ids', ids[0])
  }
  if (body.metadata !== undefined) {
    const fields: Record<string, unknown> = {}
    for (const m of body.metadata as { id?: string; slug?: string; value?: unknown }[]) {
      const key = m.slug ?? m.id
      if (!key) throw badRequest('metadata: each entry needs the custom field key as slug (or id)')
      fields[key] = m.value ?? null
    }
    out.custom_fields = fields
  }
  return out
}
