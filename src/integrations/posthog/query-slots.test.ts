import { describe, expect, it } from 'vitest'
import { ApiError } from '../../errors.js'
import { QUERIES_PER_TEAM, querySlot, type SlotBounds } from './query-slots.js'

/** Runs `task` in one of the team's slots, as an exchange does: freed when it settles, or earlier by the task. */
async function inQuerySlot<T>(team: string, task: (free: () => void) => Promise<T>, bounds: SlotBounds) {
  const free = await querySlot(team, bounds)
  try {
    return await task(free)
  } finally {
    free()
  }
}

/** A task that runs until its `finish` is called. */
function heldTask() {
  let finish!: () => void
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  return { run: () => done.then(() => 'ran'), finish }
}

const settled = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  )

describe('querySlot', () => {
  it('runs 3 queries of a team at once, queues up to the connection queue, and answers 429 beyond it', async () => {
    const bounds = { maxWaiting: 2, maxWaitMs: 60_000 }
    const tasks = Array.from({ length: QUERIES_PER_TEAM + 2 }, heldTask)
    let started = 0
    const runs = tasks.map((t) =>
      settled(
        inQuerySlot(
          'team-a',
          () => {
            started++
            return t.run()
          },
          bounds,
        ),
      ),
    )
    await new Promise((r) => setImmediate(r))
    expect(started).toBe(QUERIES_PER_TEAM)

    const refused = await inQuerySlot('team-a', async () => 'never', bounds).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(ApiError)
    expect((refused as ApiError).statusCode).toBe(429)
    expect((refused as ApiError).headers).toEqual({ 'retry-after': '1' })
    expect((refused as ApiError).message).toMatch(/at most 3 queries .* 2 more are already waiting/)
    expect((refused as ApiError).message).toContain('UNIGATE_PROVIDER_CONNECTION_QUEUE=2')

    // Another team has slots of its own.
    expect(await inQuerySlot('team-b', async () => 'other team', bounds)).toBe('other team')

    for (const t of tasks) t.finish()
    expect(await Promise.all(runs)).toEqual(tasks.map(() => ({ value: 'ran' })))
    expect(started).toBe(QUERIES_PER_TEAM + 2)
  })

  it('gives up a wait after its bound with a 429, and hands the freed slot to the next query, not to it', async () => {
    const held = Array.from({ length: QUERIES_PER_TEAM }, heldTask)
    const running = held.map((t) => inQuerySlot('team-c', t.run, { maxWaiting: 10, maxWaitMs: 60_000 }))
    const impatient = settled(inQuerySlot('team-c', async () => 'late', { maxWaiting: 10, maxWaitMs: 20 }))
    const patient = settled(inQuerySlot('team-c', async () => 'next', { maxWaiting: 10, maxWaitMs: 60_000 }))

    const gaveUp = (await impatient) as { error: ApiError }
    expect(gaveUp.error).toBeInstanceOf(ApiError)
    expect(gaveUp.error.statusCode).toBe(429)
    expect(gaveUp.error.message).toContain('PostHog waits as long, then answers 429')

    held[0]!.finish()
    expect(await patient).toEqual({ value: 'next' })
    for (const t of held) t.finish()
    await Promise.all(running)
    // Every slot came back: a full set of queries starts at once again.
    const again = Array.from({ length: QUERIES_PER_TEAM }, heldTask)
    let started = 0
    const runs = again.map((t) =>
      inQuerySlot(
        'team-c',
        () => {
          started++
          return t.run()
        },
        { maxWaiting: 0, maxWaitMs: 60_000 },
      ),
    )
    await new Promise((r) => setImmediate(r))
    expect(started).toBe(QUERIES_PER_TEAM)
    for (const t of again) t.finish()
    await Promise.all(runs)
  })

  it('frees a slot its task gives back early, once, and never gives the team a second set of slots', async () => {
    const bounds = { maxWaiting: 10, maxWaitMs: 60_000 }
    let running = 0
    let most = 0
    const counted =
      (t: ReturnType<typeof heldTask>, freeEarly = false) =>
      (free: () => void) => {
        if (freeEarly) {
          free()
          free()
        } else {
          running++
          most = Math.max(most, running)
        }
        return t.run().finally(() => {
          if (!freeEarly) running--
        })
      }
    // A gives its slot back as its answer begins and is still reading it; B runs to its end meanwhile.
    const a = heldTask()
    const aRun = inQuerySlot('team-d', counted(a, true), bounds)
    const b = heldTask()
    const bRun = inQuerySlot('team-d', counted(b), bounds)
    b.finish()
    await bRun
    // C takes a slot; then A ends. The team still has one set of slots: C's and two more.
    const c = heldTask()
    const cRun = inQuerySlot('team-d', counted(c), bounds)
    a.finish()
    await aRun
    const more = Array.from({ length: QUERIES_PER_TEAM }, heldTask)
    const moreRuns = more.map((t) => inQuerySlot('team-d', counted(t), bounds))
    await new Promise((r) => setImmediate(r))
    expect(running).toBe(QUERIES_PER_TEAM)
    for (const t of [c, ...more]) t.finish()
    await Promise.all([cRun, ...moreRuns])
    expect(most).toBe(QUERIES_PER_TEAM)
  })
})
