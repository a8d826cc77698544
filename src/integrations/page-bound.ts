import { ApiError } from '../errors.js'

/**
 * The answer when a provider keeps answering pages past the most a connector reads in one request: a 502
 * naming the provider, what was being read and how many rows that is, never a cut-short list. Every walk
 * that goes on while the provider says there is more has such a bound: the provider's address may be the
 * connection's own choice (`api_url`), and one that never ends its pages would otherwise hold the request,
 * and the rows read so far, without end.
 */
export function tooManyPages(provider: string, what: string, maxRows: number): ApiError {
  return new ApiError(
    502,
    `${provider} answered more than ${maxRows} ${what} for this request; Unigate reads at most that many`,
  )
}
