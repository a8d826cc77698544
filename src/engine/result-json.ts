import { ApiError } from '../errors.js'

/**
 * The 502 for a result nested deeper than JavaScript can walk: V8's JSON.stringify (and any recursive walk,
 * such as hide_sensitive's) overflows its stack some thousands of levels down. JSON.parse reads such nesting
 * without trouble, and only a provider's own data (`raw`, kept unmodified) can nest so: a connection pointed
 * at an address of its creator's answered 10 KB of `[[[…]]]`, and the route's answer was a 500.
 */
export function nestedTooDeep(err: unknown): ApiError | undefined {
  if (!(err instanceof RangeError) || !/call stack/i.test(err.message)) return undefined
  return new ApiError(
    502,
    'the provider answered data nested deeper than Unigate can write out (thousands of levels); not passed on',
    {},
    {},
    // Kept for the log: an overflow in Unigate's own code would read the same.
    { cause: err },
  )
}

/**
 * An operation's result as JSON text; a result nested past what JSON.stringify can write is a 502 naming it
 * (nestedTooDeep). Catching the overflow where the text is written costs nothing when none happens, where a
 * depth check of every answer would walk every value of every page.
 */
export function resultJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (err) {
    throw nestedTooDeep(err) ?? err
  }
}

/**
 * What `run` answers, with a stack overflow anywhere in it answered as nestedTooDeep's 502: shaping a record
 * walks each field's value (dates become text, nulls go) as JSON.stringify does, and overflows on the same
 * nesting, which a provider's own data mapped into a field (an event property in `metadata`) can reach.
 */
export async function withinNesting<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (err) {
    throw nestedTooDeep(err) ?? err
  }
}
