import { afterEach, describe, expect, it, vi } from 'vitest'
import { SharedDeadlines } from './shared-deadlines.js'

describe('SharedDeadlines', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('cuts an operation between the timeout and a tenth more after it began, sharing one signal per slot', () => {
    vi.useFakeTimers()
    const deadlines = new SharedDeadlines(1_000, () => Date.now())
    const first = deadlines.signal()
    vi.advanceTimersByTime(99)
    expect(deadlines.signal()).toBe(first)
    vi.advanceTimersByTime(1)
    const second = deadlines.signal()
    expect(second).not.toBe(first)
    vi.advanceTimersByTime(999)
    expect(first.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(first.aborted).toBe(true)
    expect((first.reason as DOMException).name).toBe('TimeoutError')
    expect(second.aborted).toBe(false)
    vi.advanceTimersByTime(100)
    expect(second.aborted).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
    deadlines.close()
  })

  it("aborts with the caller's signal, only the signals handed out for that caller", () => {
    vi.useFakeTimers()
    const deadlines = new SharedDeadlines(1_000, () => 0)
    const a = new AbortController()
    const b = new AbortController()
    const forA = deadlines.signal(a.signal)
    const forB = deadlines.signal(b.signal)
    const forNone = deadlines.signal()
    a.abort(new Error('stopping'))
    expect(forA.aborted).toBe(true)
    expect((forA.reason as Error).message).toBe('stopping')
    expect(forB.aborted).toBe(false)
    expect(forNone.aborted).toBe(false)
    // Already aborted: the caller's own signal.
    expect(deadlines.signal(a.signal)).toBe(a.signal)
    deadlines.close()
    expect(vi.getTimerCount()).toBe(0)
  })
})
