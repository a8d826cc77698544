/** Harvest v1 records as the connector reads them (developers.greenhouse.io/harvest.html); every field may be null. */

export interface GreenhouseUser {
  readonly id: number
  readonly name?: string | null
}

export interface GreenhouseKeyedField {
  readonly name?: string | null
  readonly type?: string | null
  readonly value?: unknown
}

export interface GreenhouseApplication {
  readonly id: number
  readonly candidate_id?: number | null
  readonly prospect?: boolean | null
  readonly applied_at?: string | null
  readonly rejected_at?: string | null
  readonly last_activity_at?: string | null
  readonly source?: { readonly id: number; readonly public_name?: string | null } | null
  readonly credited_to?: GreenhouseUser | null
  readonly recruiter?: GreenhouseUser | null
  readonly rejection_reason?: { readonly id: number; readonly name?: string | null } | null
  readonly jobs?: readonly { readonly id: number; readonly name?: string | null }[] | null
  readonly status?: string | null
  readonly current_stage?: { readonly id: number; readonly name?: string | null } | null
  readonly answers?: readonly { readonly question?: string | null; readonly answer?: string | null }[] | null
  readonly keyed_custom_fields?: Readonly<Record<string, GreenhouseKeyedField | null>> | null
  readonly [other: string]: unknown
}

export interface GreenhouseOffer {
  readonly id: number
  readonly version?: number | null
  readonly application_id?: number | null
  readonly created_at?: string | null
  readonly updated_at?: string | null
  /** A calendar date, `YYYY-MM-DD`. */
  readonly sent_at?: string | null
  readonly resolved_at?: string | null
  /** A calendar date, `YYYY-MM-DD`. */
  readonly starts_at?: string | null
  readonly status?: string | null
  readonly [other: string]: unknown
}

export interface GreenhouseCandidate {
  readonly id: number
  readonly applications?: readonly GreenhouseApplication[] | null
}
