/**
 * Pipedrive API v2 shapes (pipedrive/client-nodejs@97e5382fee5ffa825d0bae07a6bafb3af1d5bb77:
 * src/versions/v2/models/add-person-request.ts, get-persons-response-all-of.ts,
 * get-activities-response-all-of-additional-data.ts; the person fields of
 * https://developers.pipedrive.com/docs/api/v1/Persons, v2 tab).
 */

/** An email or a phone: `label` is work, home, mobile (phones) or other. */
export type PipedriveChannel = { value: string; primary?: boolean; label?: string }

/** A person's postal address: the formatted `value` and its geocoded parts (getPerson v2 example). */
export type PipedrivePostalAddress = {
  value?: string | null
  country?: string | null
  admin_area_level_1?: string | null
  admin_area_level_2?: string | null
  locality?: string | null
  sublocality?: string | null
  route?: string | null
  street_number?: string | null
  postal_code?: string | null
}

export type PipedrivePerson = {
  id: number
  name?: string | null
  first_name?: string | null
  last_name?: string | null
  owner_id?: number | null
  org_id?: number | null
  add_time?: string
  update_time?: string | null
  emails?: PipedriveChannel[]
  phones?: PipedriveChannel[]
  is_deleted?: boolean
  visible_to?: number
  label_ids?: number[]
  /**
   * Contact-sync fields, present only when the company has contact sync on (getPersons/getPerson in
   * client-nodejs v2 persons-api.ts: "Fields `ims`, `postal_address`, `notes`, `birthday`, and `job_title`
   * are only included if contact sync is enabled for the company").
   */
  job_title?: string | null
  postal_address?: PipedrivePostalAddress | null
  /** Custom fields by their 40-character key; a value, or an object (`{value, currency}`) for compound ones. */
  custom_fields?: Record<string, unknown> | null
  [key: string]: unknown
}

/** Every v2 answer: `{success, data, additional_data}`; lists page with `additional_data.next_cursor`. */
export type PipedriveEnvelope<T> = {
  success: boolean
  data: T
  additional_data?: { next_cursor?: string | null } | null
}
