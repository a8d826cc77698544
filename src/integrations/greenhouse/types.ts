/**
 * Harvest v3 records as the connector reads them. The v3 reference pages were not available to us; the
 * shapes follow the v3 conventions of https://harvestdocs.greenhouse.io/docs/standardizations (parent ids
 * on children, `created_at`/`updated_at` on every resource, `_at` timestamps, `_on` dates) and are an
 * assumption beyond that (see emulators/greenhouse/README.md). Every field may be null.
 */
export interface GreenhouseApplication {
  readonly id: number
  readonly candidate_id?: number | null
  readonly job_id?: number | null
  readonly prospect?: boolean | null
  readonly status?: string | null
  readonly current_stage_id?: number | null
  readonly source_id?: number | null
  readonly recruiter_id?: number | null
  readonly credited_to_id?: number | null
  readonly applied_at?: string | null
  readonly rejected_at?: string | null
  readonly last_activity_at?: string | null
  readonly created_at?: string | null
  readonly updated_at?: string | null
  readonly [other: string]: unknown
}

export interface GreenhouseOffer {
  readonly id: number
  readonly application_id?: number | null
  readonly version?: number | null
  readonly status?: string | null
  readonly created_at?: string | null
  readonly updated_at?: string | null
  /** A calendar date, `YYYY-MM-DD` (date-only fields end in `_on`). */
  readonly sent_on?: string | null
  readonly resolved_at?: string | null
  /** A calendar date, `YYYY-MM-DD`. */
  readonly start_on?: string | null
  readonly [other: string]: unknown
}
