import { ApiError } from '../../errors.js'

/**
 * HubSpot's search endpoints take at most four requests per second per token, on top of the app's
 * general limit, and answer a 429 without rate-limit headers past it
 * (https://developers.hubspot.com/changelog/crm-search-api-rate-limit-increase). The current search guide
 * counts the limit per account: "The search endpoints are rate limited to five requests per second per
 * account" (https://developers.hubspot.com/docs/api-reference/search/guide, "Limits"). Unigate holds to the
 * stricter of each, four a second per HubSpot account: it spaces its own searches per account (see
 * `searchPaceKey`) in this process so a walk through pages stays inside the limit.
 */
export const SEARCHES_PER_SECOND = 4

/**
 * What the pacer counts searches by: the HubSpot account (`portal_id`, which verification keeps from
 * Account Info) at the connection's API address when known, else the connection. Two connections to one
 * account (a private app token and an OAuth grant, or two apps) share HubSpot's per-account search limit;
 * paced apart they searched twice as fast as it allows and walked into 429s. The address is part of the
 * key: a connection's `api_url` is its own to choose, and a server of a key holder's answering Account Info
 * with another account's id must not share, and fill, that account's queue here (as PostHog's project
 * queues are shared only for the project a connection was verified with).
 */
export function searchPaceKey(
  connectionId: string,
  baseUrl: string,
  settings: Readonly<Record<string, string | undefined>>,
): string {
  const portal = settings.portal_id
  return portal ? `hubspot-portal:${portal}@${baseUrl}` : connectionId
}

/** Each connection's searches of the last second; connections quiet for a second are swept out. */
const recent = new Map<string, number[]>()
let perSecond = SEARCHES_PER_SECOND
let sweptAt = 0

/**
 * Forgets connections with no search in the last second, at most once a second: without it the map kept an
 * entry for every connection that ever searched, for as long as the process ran.
 */
function sweep(t: number): void {
  if (t - sweptAt < 1000) return
  sweptAt = t
  for (const [connectionId, times] of recent) {
    if ((times.at(-1) ?? 0) <= t - 1000) recent.delete(connectionId)
  }
}

/** How many connections the pacer holds searches of (for tests). */
export function pacedConnections(): number {
  return recent.size
}

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

/** Searches of a connection waiting here for their turn. */
const waiting = new Map<string, number>()

/**
 * Waits until one more search for this connection keeps the last second at the limit. At most `maxWaiting`
 * searches of a connection wait (the connection's queue bound, UNIGATE_PROVIDER_CONNECTION_QUEUE, which is
 * taken only once a search is sent, so it did not cover this wait); one more is a 429 at once. Before this
 * bound a flood of searching lists waited here without end, in memory.
 */
export async function paceSearch(
  connectionId: string,
  maxWaiting: number,
  now: () => number = Date.now,
): Promise<void> {
  let waited = false
  try {
    for (;;) {
      const t = now()
      sweep(t)
      const times = (recent.get(connectionId) ?? []).filter((at) => at > t - 1000)
      if (times.length < perSecond) {
        times.push(t)
        recent.set(connectionId, times)
        return
      }
      if (!waited) {
        const already = waiting.get(connectionId) ?? 0
        if (already >= maxWaiting) {
          throw new ApiError(
            429,
            `HubSpot takes at most ${perSecond} searches a second per token and ${already} more of this ` +
              `connection are already waiting here, the limit (UNIGATE_PROVIDER_CONNECTION_QUEUE=${maxWaiting}); retry later`,
            { 'retry-after': '1' },
          )
        }
        waited = true
        waiting.set(connectionId, already + 1)
      }
      await new Promise((r) => setTimeout(r, (times[0] as number) + 1000 - t + 1))
    }
  } finally {
    if (waited) {
      const left = (waiting.get(connectionId) ?? 1) - 1
      if (left > 0) waiting.set(connectionId, left)
      else waiting.delete(connectionId)
    }
  }
}
