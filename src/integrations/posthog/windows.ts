/**
 * Time windows that keep HogQL queries inside PostHog's query limits. PostHog stops a query at its
 * `max_execution_time` (60 s) and ClickHouse reads only the part of `events`/`sessions` a time bound selects,
 * so every query the integration sends is bounded in time:
 *
 * - event and session lists and reports without `start_gte` cover the `DEFAULT_WINDOW_DAYS` before `end_lt`
 *   (or now); a report says so in its `start_at`;
 * - one session by id is looked up around the time its UUIDv7 id was made (PostHog's session ids are
 *   UUIDv7), else in the default window.
 *
 * Visitor totals are the exception: they count all of the persons' events (events back-filled before a
 * person was created are theirs too), so a project too big to scan in time answers PostHog's 504.
 */

export const DEFAULT_WINDOW_DAYS = 30
const DAY_MS = 86_400_000

export interface TimeRange {
  readonly start: Date
  readonly end?: Date
}

/** The requested range, or the default window before its end (or before now). */
export function boundedRange(start: Date | undefined, end: Date | undefined, now = new Date()): TimeRange {
  if (start) return end ? { start, end } : { start }
  const until = end ?? now
  return { start: new Date(until.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS), ...(end ? { end } : {}) }
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

/** The instant a UUIDv7 was made (its first 48 bits), or undefined for other ids. */
export function uuidV7Time(id: string): Date | undefined {
  if (!UUID_V7.test(id)) return undefined
  const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16)
  return Number.isFinite(ms) ? new Date(ms) : undefined
}

/**
 * Where to look for one session: a day either side of its id's time (a session starts when its id is made;
 * the day covers clock skew and long sessions), else the default window before now.
 */
export function sessionLookupRange(id: string, now = new Date()): { start: Date; end: Date } {
  const made = uuidV7Time(id)
  if (made) return { start: new Date(made.getTime() - DAY_MS), end: new Date(made.getTime() + DAY_MS) }
  return {
    start: new Date(now.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS),
    end: new Date(now.getTime() + DAY_MS),
  }
}
