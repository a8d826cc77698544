/** After a transient refresh failure: wait 1 s, 2 s, 4 s... up to a minute before asking the provider again. */
export function refreshBackoffMs(failures: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, failures - 1))
}
