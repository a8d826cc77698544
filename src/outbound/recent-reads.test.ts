import { describe, expect, it } from 'vitest'
import { RecentReads } from './recent-reads.js'

describe('RecentReads', () => {
  it('finds that a workspace reading alone read its share, and one that read nothing did not', () => {
    const reads = new RecentReads(() => 0)
    reads.add('ws_a', 5_000)
    expect(reads.readAtLeastItsShare('ws_a')).toBe(true)
    expect(reads.readAtLeastItsShare('ws_b')).toBe(false)
  })

  it('singles out the heavy reader among light ones', () => {
    const reads = new RecentReads(() => 0)
    reads.add('ws_heavy', 50_000_000)
    for (const ws of ['ws_a', 'ws_b', 'ws_c']) reads.add(ws, 20_000)
    expect(reads.readAtLeastItsShare('ws_heavy')).toBe(true)
    expect(['ws_a', 'ws_b', 'ws_c'].map((ws) => reads.readAtLeastItsShare(ws))).toEqual([false, false, false])
  })

  it('forgets reads with a half-life of 10 s, so a past heavy reader is light again', () => {
    let now = 0
    const reads = new RecentReads(() => now)
    reads.add('ws_past', 1_000_000)
    now = 10_000
    reads.add('ws_now', 400_000)
    // 500,000 remembered against 400,000: still the heavier.
    expect(reads.readAtLeastItsShare('ws_past')).toBe(true)
    now = 20_000
    reads.add('ws_now', 100_000)
    // 250,000 against 300,000.
    expect(reads.readAtLeastItsShare('ws_past')).toBe(false)
    expect(reads.readAtLeastItsShare('ws_now')).toBe(true)
    now = 200_000
    expect(reads.readAtLeastItsShare('ws_now')).toBe(false)
  })
})
