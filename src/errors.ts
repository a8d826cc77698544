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
