/**
 * Errors the API answers with. Every one becomes the JSON body
 * `{ statusCode, error, message }` (DESIGN.md section 6); none carries a stack or a secret.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly extra: Readonly<Record<string, unknown>> = {},
    /** What went wrong inside, for the server log only; never part of the answer. */
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'ApiError'
  }
}

/** A numeric schema's bounds, as a JSON schema states them. */
export interface NumericBounds {
  readonly type?: unknown
  readonly minimum?: unknown
  readonly maximum?: unknown
  readonly exclusiveMinimum?: unknown
  readonly exclusiveMaximum?: unknown
}

/**
 * What a numeric schema allows, in words made from its own bounds (`an integer from 1 to 1000`), so that a
 * message can never disagree with the schema; undefined for a schema that is not numeric.
 */
export function numericRange(schema: NumericBounds): string | undefined {
  const noun = schema.type === 'integer' ? 'an integer' : schema.type === 'number' ? 'a number' : undefined
  if (noun === undefined) return undefined
  const { minimum: min, maximum: max, exclusiveMinimum: above, exclusiveMaximum: below } = schema
  const bounds: string[] = []
  if (typeof min === 'number' && typeof max === 'number') bounds.push(`from ${min} to ${max}`)
  else if (typeof min === 'number') bounds.push(`of at least ${min}`)
  else if (typeof max === 'number') bounds.push(`of at most ${max}`)
  if (typeof above === 'number') bounds.push(`greater than ${above}`)
  if (typeof below === 'number') bounds.push(`less than ${below}`)
  return [noun, bounds.join(' and ')].filter(Boolean).join(' ')
}

/** How many of a caller's names a message lists, and how many characters of each it keeps. */
const LISTED_NAMES = 10
const LISTED_NAME_CHARS = 64

/**
 * A caller's names for a message, comma-joined: the first few, each cut to a readable length, and how many
 * more there are (`k0, k1, …, k9 and 59,990 more`). A message once listed every unknown key a request
 * sent, and 60,000 of them made a 469 KB 400.
 */
export function listedNames(names: readonly string[]): string {
  const shown = names
    .slice(0, LISTED_NAMES)
    .map((n) => (n.length > LISTED_NAME_CHARS ? `${n.slice(0, LISTED_NAME_CHARS)}…` : n))
  const more = names.length - shown.length
  return more > 0 ? `${shown.join(', ')} and ${more.toLocaleString('en-US')} more` : shown.join(', ')
}

export const badRequest = (message: string) => new ApiError(400, message)
export const unauthorized = (message: string) => new ApiError(401, message)
export const notFound = (message: string) => new ApiError(404, message)
export const notImplemented = (message: string) => new ApiError(501, message)

/** A provider answered with a non-2xx status (after retries). */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    readonly providerMessage: string,
    readonly retryAfterSeconds?: number,
    /** The refusal is a daily quota spent (the retry policy's `dailyQuotaSpent`): no wait within a day clears it. */
    readonly dailyQuotaSpent = false,
    /**
     * `providerMessage` is the answer itself (its text, or its JSON written out), not a message the provider
     * stated in a field or header: whatever the address answered, which some answers must not repeat.
     */
    readonly messageIsBody = false,
  ) {
    super(`provider answered ${status}: ${providerMessage}`)
    this.name = 'ProviderError'
  }
}

/** A provider did not answer in time. */
export class ProviderTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`provider did not answer within ${timeoutMs} ms`)
    this.name = 'ProviderTimeoutError'
  }
}

/** The provider could not be reached at all (connection refused, DNS). */
export class ProviderUnreachableError extends Error {
  constructor(readonly reason: string) {
    super(`provider unreachable: ${reason}`)
    this.name = 'ProviderUnreachableError'
  }
}

/**
 * A provider answered more than the process reads into memory (UNIGATE_PROVIDER_MAX_BODY_BYTES). A kind of
 * unreachable: no usable answer came back, and every caller that handles one handles this.
 */
export class ProviderAnswerTooLargeError extends ProviderUnreachableError {
  constructor(
    readonly capBytes: number,
    /** Which cap, when it is not the body cap (an archive's unpacked size). */
    reason = `the answer is larger than ${capBytes} bytes, the cap on provider answers (UNIGATE_PROVIDER_MAX_BODY_BYTES)`,
  ) {
    super(reason)
    this.name = 'ProviderAnswerTooLargeError'
  }
}

/** Whose share of provider calls a ConnectionBusyError names, and the settings that size it. */
const BUSY_SCOPES = {
  connection: 'UNIGATE_PROVIDER_CONNECTION',
  workspace: 'UNIGATE_PROVIDER_WORKSPACE',
} as const
export type BusyScope = keyof typeof BUSY_SCOPES

/**
 * A connection, or the workspace it belongs to, already has its share of provider calls running and queued
 * (src/outbound/connection-limiter.ts): answered 429.
 */
export class ConnectionBusyError extends Error {
  constructor(
    readonly concurrency: number,
    readonly queue: number,
    readonly scope: BusyScope = 'connection',
  ) {
    const setting = BUSY_SCOPES[scope]
    super(
      `this ${scope} already has ${concurrency} provider calls running and ${queue} waiting, its limit ` +
        `(${setting}_CONCURRENCY=${concurrency}, ${setting}_QUEUE=${queue}); retry later`,
    )
    this.name = 'ConnectionBusyError'
  }
}

/**
 * A provider's refusal of its webhooks API to these credentials, as the integration recognises it (a
 * Pipedrive OAuth app without the webhooks scope): they may not subscribe, while they may still read. A
 * webhook whose type was left out polls instead (WebhookService).
 */
export class WebhooksNotPermitted extends ProviderError {
  constructor(status: number, message: string, retryAfterSeconds?: number) {
    super(status, message, retryAfterSeconds)
    this.name = 'WebhooksNotPermitted'
  }
}

/** A call its connection's or workspace's bound refused, with nothing sent: to be retried shortly. */
export class BoundRefusal extends ApiError {}

/** The API's answer to a call its connection's or workspace's bound refused: 429, to be retried shortly. */
export function busyAnswer(err: ConnectionBusyError): BoundRefusal {
  return new BoundRefusal(429, err.message, { 'retry-after': '1' })
}
