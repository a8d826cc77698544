/**
 * Matomo reports API failures with HTTP 200 and this body; clients must read `result` to notice.
 */
export class MatomoApiError extends Error {}

export const matomoError = (message: string) => ({ result: 'error', message })

export const requireParam = (params: Readonly<Record<string, string>>, name: string): string => {
  const v = params[name]
  if (v === undefined || v === '') throw new MatomoApiError(`Please specify a value for '${name}'.`)
  return v
}
