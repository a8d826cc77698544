/**
 * JSON.parse takes its time per value, not per byte: 32 MiB of `[{},{},…]` (11 million values) held the
 * event loop for 7 to 16 s on a 2-core machine, while text of the same size made of long strings parses in
 * milliseconds. A provider answer (or an export line) that a connection's creator may control is counted
 * first, here, so that one too dense to parse in a moment is refused before it holds every request.
 */

/**
 * The bytes that start a value: a comma starts every value of an array or object but its first, and an
 * opening bracket or brace starts a container and comes before that first value. Counting commas alone
 * missed nesting: 32 MB of `[[[…]]]` holds no comma and 16 million values, and held the event loop for 5.5 s.
 */
const VALUE_MARKS = [0x2c, 0x5b, 0x7b] as const

/**
 * The commas, `[` and `{` of `bytes` from `start` to `end`, counted up to `limit`: every value of a JSON
 * text but a scalar at its top follows one (those in strings count too, so the count errs high). Each is
 * found by a native scan, about 33 ms for a million; answers with few are counted in a few scans.
 */
export function valueMarksUpTo(bytes: Buffer, limit: number, start = 0, end = bytes.length): number {
  let count = 0
  for (const mark of VALUE_MARKS) {
    for (let at = bytes.indexOf(mark, start); at !== -1 && at < end; at = bytes.indexOf(mark, at + 1)) {
      if (++count >= limit) return count
    }
  }
  return count
}

/** Whether `bytes` from `start` to `end` hold at least `limit` values by valueMarksUpTo (counting stops there). */
export function holdsValues(bytes: Buffer, limit: number, start = 0, end = bytes.length): boolean {
  return valueMarksUpTo(bytes, limit, start, end) >= limit
}
