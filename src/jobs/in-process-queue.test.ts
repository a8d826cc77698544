import { describe, expect, it, vi } from 'vitest'
import { InProcessJobQueue } from './in-process-queue.js'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

describe('InProcessJobQueue', () => {
  it('never runs the same job twice at once, and runs it again when asked while running', async () => {
    const queue = new InProcessJobQueue(4, () => {})
    const gate = deferred()
    let active = 0
    let maxActive = 0
    let runs = 0
    queue.handle('poll', async () => {
      active++
      maxActive = Math.max(maxActive, active)
      runs++
      await gate.promise
      active--
    })
    await queue.start()
    await queue.enqueue('poll', 'wh_1')
    await queue.enqueue('poll', 'wh_1')
    await queue.enqueue('poll', 'wh_1')
    gate.resolve()
    await new Promise((r) => setTimeout(r, 20))
    await queue.stop()
    expect(maxActive).toBe(1)
    expect(runs).toBe(2)
  })

  it('runs different subjects side by side up to the concurrency', async () => {
    const queue = new InProcessJobQueue(2, () => {})
    const gate = deferred()
    let active = 0
    let maxActive = 0
    queue.handle('deliver', async () => {
      active++
      maxActive = Math.max(maxActive, active)
      await gate.promise
      active--
    })
    await queue.start()
    for (const s of ['a', 'b', 'c']) await queue.enqueue('deliver', s)
    await new Promise((r) => setTimeout(r, 10))
    expect(maxActive).toBe(2)
    gate.resolve()
    await new Promise((r) => setTimeout(r, 10))
    await queue.stop()
  })

  it('starts waiting jobs by turn, then as asked for, so a later turn never stands in front of an earlier one', async () => {
    const queue = new InProcessJobQueue(1, () => {})
    const gate = deferred()
    const started: string[] = []
    queue.handle('poll', async (subject) => {
      started.push(subject)
      if (subject === 'first') await gate.promise
    })
    await queue.start()
    await queue.enqueue('poll', 'first', { turn: 5 })
    await queue.enqueue('poll', 'a', { turn: 2 })
    await queue.enqueue('poll', 'b', { turn: 0 })
    await queue.enqueue('poll', 'c', { turn: 1 })
    await queue.enqueue('poll', 'd', { turn: 0 })
    // Asked for again at an earlier turn, a waiting job moves up to it; at a later one it stays.
    await queue.enqueue('poll', 'a', { turn: 0 })
    await queue.enqueue('poll', 'b', { turn: 3 })
    // Asked for while running, it runs again afterwards at the turn asked.
    await queue.enqueue('poll', 'first', { turn: 1 })
    gate.resolve()
    await new Promise((r) => setTimeout(r, 20))
    await queue.stop()
    expect(started).toEqual(['first', 'b', 'd', 'a', 'c', 'first'])
  })

  it('keeps a slot for a workspace with nothing running, and gives a freed slot to the least busy workspace', async () => {
    const queue = new InProcessJobQueue(3, () => {})
    const gates = new Map<string, ReturnType<typeof deferred>>()
    const started: string[] = []
    let open = false
    queue.handle('poll', async (subject) => {
      started.push(subject)
      if (open) return
      const gate = deferred()
      gates.set(subject, gate)
      await gate.promise
    })
    await queue.start()
    // One workspace's long checks: they take two of the three slots, not all three.
    for (const s of ['a1', 'a2', 'a3', 'a4']) await queue.enqueue('poll', s, { group: 'A' })
    expect(started).toEqual(['a1', 'a2'])
    // Another workspace's check starts at once on the slot kept free; a third's waits for a slot.
    await queue.enqueue('poll', 'b1', { group: 'B' })
    await queue.enqueue('poll', 'c1', { group: 'C' })
    expect(started).toEqual(['a1', 'a2', 'b1'])
    // A's first check ends: the slot goes to C (nothing running), not to A's next, asked for earlier.
    gates.get('a1')?.resolve()
    await new Promise((r) => setTimeout(r, 10))
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1'])
    open = true
    for (const gate of gates.values()) gate.resolve()
    await new Promise((r) => setTimeout(r, 10))
    await queue.stop()
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'a4'])
  })

  it('has room while a slot is free however many jobs are held back for it, and drops those past holdAtMost', async () => {
    const queue = new InProcessJobQueue(3, () => {}, 20_000, 2)
    const gate = deferred()
    const started: string[] = []
    queue.handle('poll', async (subject) => {
      started.push(subject)
      await gate.promise
    })
    await queue.start()
    for (const s of ['a1', 'a2', 'a3', 'a4', 'a5', 'a6']) await queue.enqueue('poll', s, { group: 'A' })
    expect(started).toEqual(['a1', 'a2'])
    // Four held back for the kept slot: a caller fetching from elsewhere is still told there is room.
    let room = false
    void queue.allStarted().then(() => {
      room = true
    })
    await new Promise((r) => setTimeout(r, 0))
    expect(room).toBe(true)
    await queue.enqueue('poll', 'b1', { group: 'B' })
    expect(started).toEqual(['a1', 'a2', 'b1'])
    gate.resolve()
    await new Promise((r) => setTimeout(r, 10))
    await queue.stop()
    // Of the four held, the two latest were dropped (their work is due in the database, asked for again).
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4'])
  })

  it("does not read through a busy workspace's held-back backlog for every job asked for or ended", async () => {
    const queue = new InProcessJobQueue(3, () => {})
    const ends: (() => void)[] = []
    queue.handle('poll', () => new Promise<void>((resolve) => ends.push(resolve)))
    await queue.start()
    // Two of A's checks run; 5,000 more wait, held back from the slot kept for other workspaces.
    for (let i = 0; i < 5_002; i++) await queue.enqueue('poll', `a${i}`, { group: 'A', turn: i })
    // Counted as lookups by owner: reading through the backlog is one per waiting job, each time.
    const lookups = vi.spyOn(Map.prototype, 'get')
    try {
      for (let i = 0; i < 200; i++) await queue.enqueue('poll', `x${i}`, { group: 'A', turn: 6_000 + i })
      for (let i = 0; i < 100; i++) {
        ends.shift()?.()
        await new Promise((r) => setImmediate(r))
      }
      // 200 jobs asked for and 100 ended (each starting the next of A's): a few lookups each, not 5,000
      // each (over two million in all).
      expect(lookups.mock.calls.length).toBeLessThan(20_000)
    } finally {
      lookups.mockRestore()
      for (const end of ends) end()
      await queue.stop()
    }
  })

  it('lets one workspace use its only slot: with one slot there is none to keep', async () => {
    const queue = new InProcessJobQueue(1, () => {})
    const started: string[] = []
    queue.handle('poll', async (subject) => {
      started.push(subject)
    })
    await queue.start()
    for (const s of ['a1', 'a2']) await queue.enqueue('poll', s, { group: 'A' })
    await new Promise((r) => setTimeout(r, 10))
    await queue.stop()
    expect(started).toEqual(['a1', 'a2'])
  })

  it('reports a failing job and keeps going', async () => {
    const errors: string[] = []
    const queue = new InProcessJobQueue(1, (_err, kind, subject) => errors.push(`${kind}:${subject}`))
    let ok = 0
    queue.handle('x', async (subject) => {
      if (subject === 'bad') throw new Error('boom')
      ok++
    })
    await queue.start()
    await queue.enqueue('x', 'bad')
    await queue.enqueue('x', 'good')
    await new Promise((r) => setTimeout(r, 10))
    await queue.stop()
    expect(errors).toEqual(['x:bad'])
    expect(ok).toBe(1)
  })
})
