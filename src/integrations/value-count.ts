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

const COLON = 0x3a
const QUOTE = 0x22
const BACKSLASH = 0x5c
const isJsonSpace = (byte: number | undefined) =>
  byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d

/** Whether the byte at `at` is escaped: an odd run of backslashes before it. */
function escaped(bytes: Buffer, at: number, start: number): boolean {
  let run = 0
  for (let i = at - 1; i >= start && bytes[i] === BACKSLASH; i--) run++
  return run % 2 === 1
}

/**
 * Whether the object keys of `bytes` from `start` to `end` take at least `limit` different spellings. JSON.parse
 * reads a key as it reads a value, but a key it has not seen is a new string and, in a new object, a new object
 * shape: 990,000 keys all different (17 MB, under the value bound) took it 1.1 to 1.3 s, and 495,000 objects of
 * one key each up to 2.4 s (a security review, reproduced), where the same count of keys repeated from row to
 * row (every provider's page, a Mixpanel series keyed by date) parses at a tenth of the cost. Counting every
 * colon would have cut those real answers at half their size, so the keys are read: the strings are walked
 * from quote to unescaped quote (outside a string every quote opens one), and a string that whitespace and a
 * colon follow is a key; each byte is looked at about once. An answer of fewer colons than `limit` is answered
 * by a native count alone. Written by hand: it is a scan for one thing over bytes JSON.parse reads next, which
 * a parser library would read whole first.
 */
export function holdsDistinctKeys(bytes: Buffer, limit: number, start = 0, end = bytes.length): boolean {
  let colons = 0
  for (
    let at = bytes.indexOf(COLON, start);
    at !== -1 && at < end && colons < limit;
    at = bytes.indexOf(COLON, at + 1)
  ) {
    colons++
  }
  if (colons < limit) return false
  const keys = new Set<string>()
  for (let at = start; ; ) {
    const open = bytes.indexOf(QUOTE, at)
    if (open === -1 || open >= end) return false
    let close = bytes.indexOf(QUOTE, open + 1)
    while (close !== -1 && close < end && escaped(bytes, close, open + 1))
      close = bytes.indexOf(QUOTE, close + 1)
    if (close === -1 || close >= end) return false
    let next = close + 1
    while (next < end && isJsonSpace(bytes[next])) next++
    if (next < end && bytes[next] === COLON) {
      keys.add(bytes.toString('latin1', open + 1, close))
      if (keys.size >= limit) return true
    }
    at = close + 1
  }
}
