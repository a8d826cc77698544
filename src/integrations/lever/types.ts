/** Lever API v1 records as the connector reads them (https://hire.lever.co/developer/documentation). Times are ms. */

export interface LeverList<T> {
  readonly data: readonly T[]
  readonly hasNext?: boolean
  /** The offset token of the next page. */
  readonly next?: string
}

export interface LeverApplication {
  readonly id: string
  readonly createdAt?: number | null
  readonly posting?: string | null
  readonly type?: string | null
}

export interface LeverOpportunity {
  readonly id: string
  readonly contact?: string | null
  readonly stage?: string | null
  readonly archived?: { readonly archivedAt?: number | null; readonly reason?: string | null } | null
  readonly createdAt?: number | null
  readonly updatedAt?: number | null
  readonly owner?: string | null
  readonly sources?: readonly string[] | null
  /** Application ids, or the applications themselves with `expand=applications`. */
  readonly applications?: readonly (string | LeverApplication)[] | null
  readonly [other: string]: unknown
}

export interface LeverStage {
  readonly id: string
  readonly text?: string | null
}

export interface LeverArchiveReason {
  readonly id: string
  readonly text?: string | null
  /** `hired` or `non-hired`. */
  readonly type?: string | null
}

export interface LeverOffer {
  readonly id: string
  readonly createdAt?: number | null
  readonly status?: string | null
  readonly creator?: string | null
  readonly sentDocument?: { readonly uploadedAt?: number | null } | null
  readonly signedDocument?: { readonly uploadedAt?: number | null } | null
  readonly [other: string]: unknown
}
