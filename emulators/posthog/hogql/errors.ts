/**
 * Why a HogQL query was refused. PostHog answers these with 400 `validation_error` (`QueryViewSet.create`
 * turns `ExposedHogQLError` and `ResolutionError` into DRF's `ValidationError`,
 * PostHog/posthog@master:posthog/api/query.py); the code says which
 * kind of problem it is. `unsupported_by_emulator` marks valid HogQL outside the emulator's subset, which
 * is refused rather than answered wrongly.
 */
export type HogQLErrorCode = 'syntax_error' | 'resolution_error' | 'type_error' | 'unsupported_by_emulator'

export class HogQLError extends Error {
  constructor(
    readonly code: HogQLErrorCode,
    message: string,
  ) {
    super(message)
    this.name = 'HogQLError'
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
