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
 * A colon ends an object's key, which JSON.parse reads as it reads a value and, when keys differ from object
 * to object, at several times the cost (a new key is a new string and a new object shape): 990,000 distinct
 * keys (17 MB), counted as 990,000 values, took JSON.parse 1.1 to 1.3 s, and 495,000 objects of one key each
 * 1.5 to 2.4 s (a security review, reproduced). Counted with their keys, such answers reach the same bound at
 * half the keys; a record of the same keys on every row (every provider's page) parses at a tenth of that
 * cost per mark.
 */
const VALUE_MARKS = [0x2c, 0x5b, 0x7b, 0x3a] as const

/**
 * The commas, `[`, `{` and `:` of `bytes` from `start` to `end`, counted up to `limit`: every value of a JSON
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
