/**
 * HubSpot's search endpoints take at most four requests per second per token, on top of the app's
 * general limit, and answer a 429 without rate-limit headers past it
 * (https://developers.hubspot.com/changelog/crm-search-api-rate-limit-increase;
 * https://developers.hubspot.com/docs/guides/api/crm/search, "Limitations"). Unigate spaces its own
 * searches per connection in this process so a walk through pages stays inside the limit.
 */
export const SEARCHES_PER_SECOND = 4

const recent = new Map<string, number[]>()
let perSecond = SEARCHES_PER_SECOND

/**
 * Sets how many searches a second this process allows itself, and gives back a function restoring the
 * previous figure. For tests against an emulator told to allow as many: a walk through more than 10,000
 * results is some fifty searches, which need not take a quarter of a minute there.
 */
export function setSearchesPerSecond(n: number): () => void {
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`searches per second must be a whole number above 0, not ${n}`)
  const previous = perSecond
  perSecond = n
  return () => {
    perSecond = previous
  }
}

/** Waits until one more search for this connection keeps the last second at the limit. */
export async function paceSearch(connectionId: string, now: () => number = Date.now): Promise<void> {
  for (;;) {
    const t = now()
    const times = (recent.get(connectionId) ?? []).filter((at) => at > t - 1000)
    if (times.length < perSecond) {
      times.push(t)
      recent.set(connectionId, times)
      return
    }
    await new Promise((r) => setTimeout(r, (times[0] as number) + 1000 - t + 1))
  }
}
