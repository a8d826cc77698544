/**
 * Why a HogQL query was refused, and what PostHog answers for it. `QueryViewSet.create` turns HogQL's own
 * errors (syntax, resolution: `ExposedHogQLError`) and the ClickHouse errors it exposes
 * (`ExposedCHQueryError`) into DRF's `ValidationError(str(e), getattr(e, "code_name", None))`: a 400
 * `validation_error` whose code is `invalid` (DRF's default) for HogQL's errors and the ClickHouse error's
 * lower-case name for ClickHouse's (PostHog/posthog@master:posthog/api/query.py `QueryViewSet.create`,
 * PostHog/posthog@00cc6947fedd:posthog/errors.py `wrap_clickhouse_query_error`,
 * `CLICKHOUSE_ERROR_CODE_LOOKUP`). `unsupported_by_emulator` marks valid HogQL outside the emulator's
 * subset, refused rather than answered wrongly.
 */
export type HogQLErrorCode = 'syntax_error' | 'resolution_error' | 'type_error' | 'unsupported_by_emulator'

/**
 * A ClickHouse error PostHog passes on: its code name and, where PostHog replaces ClickHouse's text (the
 * parse errors, whose text holds data values), PostHog's fixed message (posthog/errors.py, as above).
 */
export interface ClickHouseError {
  readonly name:
    | 'illegal_type_of_argument'
    | 'illegal_type_of_column_for_filter'
    | 'no_common_type'
    | 'not_an_aggregate'
    | 'illegal_aggregation'
    | 'cannot_parse_uuid'
    | 'cannot_parse_date'
    | 'cannot_parse_datetime'
    | 'cannot_parse_text'
  readonly fixedMessage?: string
}

export const CLICKHOUSE = {
  illegalType: { name: 'illegal_type_of_argument' },
  illegalFilterType: { name: 'illegal_type_of_column_for_filter' },
  noCommonType: { name: 'no_common_type' },
  notAnAggregate: { name: 'not_an_aggregate' },
  illegalAggregation: { name: 'illegal_aggregation' },
  cannotParseUuid: { name: 'cannot_parse_uuid' },
  cannotParseDate: {
    name: 'cannot_parse_date',
    fixedMessage: 'Cannot parse a date. Check your date values and their format.',
  },
  cannotParseDateTime: {
    name: 'cannot_parse_datetime',
    fixedMessage: 'Cannot parse a date and time. Check your datetime values and their format.',
  },
  cannotParseText: {
    name: 'cannot_parse_text',
    fixedMessage:
      'Cannot parse a value as the requested type. Check your input formats and type conversions.',
  },
} as const satisfies Record<string, ClickHouseError>

export class HogQLError extends Error {
  constructor(
    readonly code: HogQLErrorCode,
    message: string,
    /** Set when ClickHouse (not HogQL) refuses the query in PostHog. */
    readonly clickhouse?: ClickHouseError,
  ) {
    super(message)
    this.name = 'HogQLError'
  }

  /** The `code` of PostHog's 400 body. */
  get wireCode(): string {
    if (this.code === 'unsupported_by_emulator') return this.code
    return this.clickhouse?.name ?? 'invalid'
  }

  /** The `detail` of PostHog's 400 body. */
  get wireDetail(): string {
    return this.clickhouse?.fixedMessage ?? this.message
  }
}

export function unsupported(what: string): HogQLError {
  return new HogQLError(
    'unsupported_by_emulator',
    `${what} is not supported by the PostHog emulator's HogQL subset`,
  )
}

export function syntaxError(text: string, position: number, message: string): HogQLError {
  const before = text.slice(0, position)
  const line = before.split('\n').length
  const column = position - before.lastIndexOf('\n')
  return new HogQLError('syntax_error', `Syntax error at line ${line}, column ${column}: ${message}`)
}
