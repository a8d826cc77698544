import { badRequest, ProviderError } from '../../errors.js'

/**
 * Runs a Gusto read addressed by a filter's value; Gusto's 404 for it means the value names nothing in this
 * company, which is the caller's bad input: a 400 naming the filter and where its ids come from.
 */
export async function byFilter<T>(filter: string, value: string, listPath: string, read: () => Promise<T>) {
  try {
    return await read()
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) {
      throw badRequest(
        `${filter}: '${value}' is not one of this Gusto connection's ids; list ${listPath} for them`,
      )
    }
    throw err
  }
}
