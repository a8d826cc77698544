import { instantOfWall, offsetMs, utcMs } from '../zones.js'

/**
 * The UTC instant at which a calendar day starts in a Matomo site timezone: an IANA name, or Matomo's
 * manual offsets such as `UTC+5.5`. Unknown zones are read as UTC rather than failing a report.
 */
export function startOfDayIn(day: string, timezone: string | undefined): Date {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  const utc = utcMs(y, m - 1, d)
  const manual = /^UTC([+-]\d+(?:\.\d+)?)?$/.exec(timezone ?? 'UTC')
  if (manual) return new Date(utc - Number(manual[1] ?? 0) * 3_600_000)
  try {
    // Two passes settle days whose midnight falls next to a DST change.
    let guess = utc
    for (let i = 0; i < 2; i++) guess = utc - offsetMs(guess, timezone as string)
    return new Date(guess)
  } catch {
    return new Date(utc)
  }
}

const manualOffsetHours = (timezone: string | undefined): number | undefined => {
  const manual = /^UTC([+-]\d+(?:\.\d+)?)?$/.exec(timezone ?? 'UTC')
  return manual ? Number(manual[1] ?? 0) : undefined
}

/**
 * Every instant (unix seconds) a Live action `timestamp` can stand for. Unlike a visit's
 * first/lastActionTimestamp, Live writes an action's time as the site's wall clock read as if it were UTC
 * (UTC plus the site's offset: matomo-org/matomo@f09912cb:plugins/Actions/VisitorDetails.php
 * extendActionDetails, `Date::factory(server_time, site timezone)->getTimestamp()`; core/Date.php factory
 * and adjustForTimezone; reported as matomo-org/matomo#22720). Usually one instant; two in the hour a
 * daylight-saving change repeats (earlier first); for a wall time the clock skipped, the one
 * instantOfWall gives. Unknown zones are read as UTC.
 */
export function instantsOfSiteWall(seconds: number, timezone: string | undefined): number[] {
  const manual = manualOffsetHours(timezone)
  if (manual !== undefined) return [seconds - manual * 3600]
  try {
    const zone = timezone as string
    // The offsets in force a day either side cover both sides of any change near this wall time.
    const offsets = new Set([-86_400, 0, 86_400].map((d) => offsetMs((seconds + d) * 1000, zone) / 1000))
    const found = [...offsets]
      .map((offset) => seconds - offset)
      .filter((t) => offsetMs(t * 1000, zone) / 1000 === seconds - t)
      .sort((a, b) => a - b)
    return found.length > 0 ? [...new Set(found)] : [instantOfWall(seconds * 1000, zone) / 1000]
  } catch {
    return [seconds]
  }
}

/** What one reading of an action's time costs: outside the visit's bounds, then out of action order. */
type Cost = readonly [outside: number, disorder: number]
const cheaper = (a: Cost, b: Cost) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])

/**
 * The instants (unix seconds) of a visit's actions, whose Live `timestamp`s are wall-clock readings
 * (see instantsOfSiteWall). Where a reading is ambiguous (the hour repeated when daylight saving ends),
 * the instant chosen lies inside the visit's own bounds, `firstActionTimestamp` to `lastActionTimestamp`
 * (unix UTC, plugins/Live/VisitorDetails.php); where both or neither do, the one that keeps the actions
 * in time order, as Live lists them (plugins/Actions/VisitorDetails.php orders them by server time).
 * Both rules at once over the whole visit: the choice with the fewest instants out of bounds, then the
 * fewest out of order. When even that ties (a lone action out of its bounds), the later instant.
 * An action without a numeric timestamp has none.
 */
export function actionInstants(
  timestamps: readonly unknown[],
  first: unknown,
  last: unknown,
  timezone: string | undefined,
): Array<number | undefined> {
  const lo = Number(first)
  const hi = Number(last)
  const outside = (t: number) => ((Number.isFinite(lo) && t < lo) || (Number.isFinite(hi) && t > hi) ? 1 : 0)
  const steps: Array<{ index: number; candidates: number[] }> = []
  timestamps.forEach((ts, index) => {
    const n = ts === null || ts === '' ? Number.NaN : Number(ts)
    if (Number.isFinite(n)) steps.push({ index, candidates: instantsOfSiteWall(n, timezone) })
  })
  // best[i][k]: the cheapest readings of steps 0..i that end with candidate k of step i, and the
  // candidate of step i - 1 it came from. Iterating candidates in ascending order and keeping the last
  // of equal costs prefers the later instant on a tie.
  interface Choice {
    readonly cost: Cost
    readonly from: number
  }
  const best: Choice[][] = []
  let previous: { candidates: number[]; choices: Choice[] } | undefined
  for (const { candidates } of steps) {
    const choices = candidates.map((t): Choice => {
      if (!previous) return { cost: [outside(t), 0], from: -1 }
      let choice: Choice = { cost: [Number.POSITIVE_INFINITY, 0], from: -1 }
      for (const [k, p] of previous.choices.entries()) {
        const disorder = t < (previous.candidates[k] as number) ? 1 : 0
        const cost: Cost = [p.cost[0] + outside(t), p.cost[1] + disorder]
        if (!cheaper(choice.cost, cost)) choice = { cost, from: k }
      }
      return choice
    })
    best.push(choices)
    previous = { candidates, choices }
  }
  const out: Array<number | undefined> = timestamps.map(() => undefined)
  let k = -1
  for (const [j, c] of (previous?.choices ?? []).entries()) {
    const kept = previous?.choices[k]
    if (!kept || !cheaper(kept.cost, c.cost)) k = j
  }
  for (let i = steps.length - 1; i >= 0 && k >= 0; i--) {
    const step = steps[i] as { index: number; candidates: number[] }
    out[step.index] = step.candidates[k]
    k = best[i]?.[k]?.from ?? -1
  }
  return out
}
