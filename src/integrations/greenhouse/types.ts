/**
 * Harvest v3 records as the connector reads them: the fields of the v3 examples and schemas in
 * airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml
 * and the v3 conventions of https://harvestdocs.greenhouse.io/docs/standardizations. Every field may be null.
 */
export interface GreenhouseCustomField {
  readonly name?: string | null
  readonly type?: string | null
  readonly value?: unknown
}

export interface GreenhouseApplication {
  readonly id: number
  readonly candidate_id?: number | null
  /** null for a prospect; its jobs are `prospective_job_ids`. */
  readonly job_id?: number | null
  readonly prospective_job_ids?: readonly number[] | null
  readonly prospect?: boolean | null
  /** `in_process`, `rejected`, `hired` or `converted`. */
  readonly status?: string | null
  readonly stage_id?: number | null
  readonly stage_name?: string | null
  readonly source_id?: number | null
  readonly recruiter_id?: number | null
  readonly rejection_reason_id?: number | null
  readonly rejected_at?: string | null
  readonly last_activity_at?: string | null
  readonly created_at?: string | null
  readonly updated_at?: string | null
  readonly answers?: readonly { readonly question?: string | null; readonly answer?: string | null }[] | null
  /** Keyed by the field's `name_key`. */
  readonly custom_fields?: Readonly<Record<string, GreenhouseCustomField | null>> | null
  readonly [other: string]: unknown
}

export interface GreenhouseOffer {
  readonly id: number
  readonly application_id?: number | null
  readonly version?: number | null
  /** Created, Accepted, Rejected or Deprecated (compared without case). */
  readonly status?: string | null
  readonly created_at?: string | null
  readonly updated_at?: string | null
  /** A calendar date, `YYYY-MM-DD`. */
  readonly sent_on?: string | null
  readonly resolved_at?: string | null
  /** A calendar date, `YYYY-MM-DD`. */
  readonly starts_on?: string | null
  readonly [other: string]: unknown
}
