/**
 * Google's JSON error body: `{"error":{"code","message","status","details"}}` with the canonical status
 * name of the HTTP code (https://google.aip.dev/193; googleapis/googleapis google/rpc/code.proto for the
 * name per code). 502 has no canonical code; UNAVAILABLE is the emulator's choice.
 */

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
}

const DEFAULT_MESSAGES: Readonly<Record<number, string>> = {
  429: 'Exhausted property tokens per hour for a property. Wait until the hour resets before sending more requests.',
  500: 'Internal error encountered.',
  502: 'The service is currently unavailable.',
  503: 'The service is currently unavailable.',
  504: 'The request timed out. Please try again.',
}

export function statusNameOf(code: number): string {
  return STATUS_NAMES[code] ?? (code >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION')
}

/** Google's legacy `errors[]` entry, still sent by the YouTube APIs (https://developers.google.com/youtube/v3/docs/errors). */
export interface LegacyError {
  readonly message: string
  readonly domain: string
  readonly reason: string
  readonly location?: string
  readonly locationType?: string
}

export interface GoogleErrorBody {
  readonly error: {
    readonly code: number
    readonly message: string
    readonly status: string
    readonly errors?: readonly LegacyError[]
    readonly details?: readonly unknown[]
  }
}

export function googleError(
  code: number,
  message: string,
  extra: { status?: string; errors?: readonly LegacyError[]; details?: readonly unknown[] } = {},
): GoogleErrorBody {
  return {
    error: {
      code,
      message,
      ...(extra.errors ? { errors: extra.errors } : {}),
      status: extra.status ?? statusNameOf(code),
      ...(extra.details ? { details: extra.details } : {}),
    },
  }
}

/** A Google API refusal a route throws; the emulator's error handler sends its body. */
export class GoogleApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly extra: { status?: string; errors?: readonly LegacyError[]; details?: readonly unknown[] } = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message)
  }

  get body(): GoogleErrorBody {
    return googleError(this.code, this.message, this.extra)
  }
}

export const invalidArgument = (message: string) => new GoogleApiError(400, message)

/**
 * What a fault of `status` answers with when the test did not give a body: Google's shape, no headers.
 * The 429 message is GA4's hourly-token refusal (https://developers.google.com/analytics/devguides/reporting/data/v1/quotas);
 * YouTube sends its own (emulators/youtube/emulator.ts).
 */
export function googleFaultResponse(status: number): { body: GoogleErrorBody } {
  return { body: googleError(status, DEFAULT_MESSAGES[status] ?? `Emulated failure ${status}.`) }
}
