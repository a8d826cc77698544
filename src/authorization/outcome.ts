/** How a step of the flow ends for the browser: sent on, or shown a page. */
export type Outcome =
  | { readonly kind: 'redirect'; readonly location: string }
  | {
      readonly kind: 'page'
      readonly status: number
      readonly html: string
      readonly headers?: Readonly<Record<string, string>>
    }

/**
 * Machine-readable reasons a flow failed, sent as `error_code` beside the human `error` message on the
 * failure redirect.
 */
export type FailureCode =
  | 'access_denied'
  | 'cancelled'
  | 'invalid_state'
  | 'state_used'
  | 'state_expired'
  | 'provider_error'
  | 'token_exchange_failed'
  | 'verification_failed'
  | 'too_many_attempts'
  | 'invalid_request'
