/**
 * Deterministic randomness for emulator data: the same seed always yields the same data, so two emulators
 * started with one seed hold identical records and tests can assert on known values.
 */

/** Mixes any number of integers into one well-distributed 32-bit value (murmur3 finalizer per step). */
export function hash32(...parts: readonly number[]): number {
  let h = 0x9e3779b9
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b)
    h ^= h >>> 13
    h = Math.imul(h, 0xc2b2ae35)
    h ^= h >>> 16
  }
  return h >>> 0
}

/** mulberry32: tiny and fast, statistically fine for fake data (not for anything secret). */
export class SeededRandom {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296
  }

  uint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (t ^ (t >>> 14)) >>> 0
  }

  /** An integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** Picks an index with probability proportional to its weight. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0
    for (const w of weights) total += w
    let r = this.next() * total
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] as number
      if (r < 0) return i
    }
    return weights.length - 1
  }

  /** An independent stream, so adding draws to one part of a generator does not shift another part's data. */
  fork(label: number): SeededRandom {
    return new SeededRandom(hash32(this.state, label))
  }
}
