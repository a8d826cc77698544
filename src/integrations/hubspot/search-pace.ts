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

/**
 * A search's place in its key's limit: counted from the moment it is sent until a second after its answer
 * came (`free` is Infinity until then). HubSpot counts a search when it arrives, some time after it was
 * sent; a search counted only for the second after its sending left no room for that time, and a walk
 * whose searches were delayed on the way (a loaded machine, a slow network) had five arrive within one of
 * HubSpot's seconds and was answered 429. A search arrives before its answer leaves, so a second after the
 * answer covers a second after its arrival.
 */
interface Slot {
  free: number
}

/** Each key's searches still counted; keys with none are swept out. */
const recent = new Map<string, Slot[]>()
/** Searches of a key waiting for one of its answers to come (every counted search is still unanswered). */
const answerWaiters = new Map<string, (() => void)[]>()
let perSecond = SEARCHES_PER_SECOND
let sweptAt = 0

/**
 * Forgets keys whose searches all passed, at most once a second: without it the map kept an entry for every
 * connection that ever searched, for as long as the process ran.
 */
function sweep(t: number): void {
  if (t - sweptAt < 1000) return
  sweptAt = t
  for (const [key, slots] of recent) {
    if (slots.every((s) => s.free <= t)) recent.delete(key)
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

/** Waits until one of the key's slots is free: the earliest a second after its answer, or the next answer. */
function slotFreed(key: string, slots: readonly Slot[], t: number): Promise<void> {
  const soonest = Math.min(...slots.map((s) => s.free))
  if (Number.isFinite(soonest)) return new Promise((r) => setTimeout(r, soonest - t + 1))
  return new Promise((r) => {
    const list = answerWaiters.get(key)
    if (list) list.push(r)
    else answerWaiters.set(key, [r])
  })
}

/**
 * Waits until one more search for this key keeps HubSpot's second at the limit, and takes its place: the
 * function answered is called once the search's answer is in (or it failed), and the place is free a
 * second later. Every attempt of a search is paced, retries too (ProviderRequest.pace): a retry sent past
 * the pacer after a 429 took a place no one counted and pushed the next paced search into a 429 of its own.
 * At most `maxWaiting` searches of a connection wait (the connection's queue bound,
 * UNIGATE_PROVIDER_CONNECTION_QUEUE, which is taken only once a search is sent, so it did not cover this
 * wait); one more is a 429 at once. Before this bound a flood of searching lists waited here without end,
 * in memory.
 */
export async function paceSearch(
  key: string,
  maxWaiting: number,
  now: () => number = Date.now,
): Promise<() => void> {
  let waited = false
  try {
    for (;;) {
      const t = now()
      sweep(t)
      const slots = (recent.get(key) ?? []).filter((s) => s.free > t)
      recent.set(key, slots)
      if (slots.length < perSecond) {
        const slot: Slot = { free: Number.POSITIVE_INFINITY }
        slots.push(slot)
        return () => answered(key, slot, now)
      }
      if (!waited) {
        const already = waiting.get(key) ?? 0
        if (already >= maxWaiting) {
          throw new ApiError(
            429,
            `HubSpot takes at most ${perSecond} searches a second per token and ${already} more of this ` +
              `connection are already waiting here, the limit (UNIGATE_PROVIDER_CONNECTION_QUEUE=${maxWaiting}); retry later`,
            { 'retry-after': '1' },
          )
        }
        waited = true
        waiting.set(key, already + 1)
      }
      await slotFreed(key, slots, t)
    }
  } finally {
    if (waited) {
      const left = (waiting.get(key) ?? 1) - 1
      if (left > 0) waiting.set(key, left)
      else waiting.delete(key)
    }
  }
}

/** A search's answer is in: its place frees a second from now, and searches waiting on answers look again. */
function answered(key: string, slot: Slot, now: () => number): void {
  if (Number.isFinite(slot.free)) return
  slot.free = now() + 1000
  const list = answerWaiters.get(key)
  answerWaiters.delete(key)
  for (const wake of list ?? []) wake()
}
