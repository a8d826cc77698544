/**
 * PostHog runs at most 3 API queries per team at once (`get_api_team_rate_limiter`, `max_concurrency=3`,
 * posthog/clickhouse/client/limit.py); a fourth waits up to 30 s and then fails with 429. The integration
 * keeps its own queries to a team within that limit in this process: one queue per API host and project,
 * shared by every connection to that team.
 */
export const QUERIES_PER_TEAM = 3

class Slots {
  private running = 0
  private readonly waiting: (() => void)[] = []

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= QUERIES_PER_TEAM) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.running++
    try {
      return await task()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0
  }
}

const slotsByTeam = new Map<string, Slots>()

/** Runs `task` in one of the team's query slots. */
export async function inQuerySlot<T>(team: string, task: () => Promise<T>): Promise<T> {
  let slots = slotsByTeam.get(team)
  if (!slots) {
    slots = new Slots()
    slotsByTeam.set(team, slots)
  }
  try {
    return await slots.run(task)
  } finally {
    if (slots.idle) slotsByTeam.delete(team)
  }
}
