/**
 * JSON.parse takes its time per value, not per byte: 32 MiB of `[{},{},…]` (11 million values) held the
 * event loop for 7 to 16 s on a 2-core machine, while text of the same size made of long strings parses in
 * milliseconds. A provider answer (or an export line) that a connection's creator may control is counted
 * first, here, so that one too dense to parse in a moment is refused before it holds every request.
 */

/**
 * The commas of `bytes` from `start` to `end`, counted up to `limit`: every value of a JSON text but the
 * last of each array or object follows one (commas in strings count too, so the count errs high). About
 * 33 ms for a million commas; answers with few commas are counted in a few native scans.
 */
export function commasUpTo(bytes: Buffer, limit: number, start = 0, end = bytes.length): number {
  let count = 0
  for (let at = bytes.indexOf(0x2c, start); at !== -1 && at < end; at = bytes.indexOf(0x2c, at + 1)) {
    if (++count >= limit) break
  }
  return count
}

/** Whether `bytes` from `start` to `end` hold at least `limit` commas (counting stops there). */
export function holdsCommas(bytes: Buffer, limit: number, start = 0, end = bytes.length): boolean {
  return commasUpTo(bytes, limit, start, end) >= limit
}
