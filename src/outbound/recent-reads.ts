/** How fast what a workspace read is forgotten: half of it every this many milliseconds. */
const HALF_LIFE_MS = 10_000
/** Below this many remembered bytes a workspace is forgotten. */
const FORGOTTEN_BYTES = 1024

interface Reads {
  bytes: number
  at: number
}

const decayed = (reads: Reads, now: number) => reads.bytes * 0.5 ** ((now - reads.at) / HALF_LIFE_MS)

/**
 * How many provider answer bytes each workspace read into memory lately, fading with a half-life of 10 s:
 * who is holding, or has just held, the memory a process runs short of. Written by hand: a decaying counter
 * per key is a few lines, and no library keeps one.
 */
export class RecentReads {
  private readonly byWorkspace = new Map<string, Reads>()

  constructor(private readonly clock: () => number = Date.now) {}

  add(workspace: string, bytes: number): void {
    const now = this.clock()
    const reads = this.byWorkspace.get(workspace)
    if (reads === undefined) this.byWorkspace.set(workspace, { bytes, at: now })
    else {
      reads.bytes = decayed(reads, now) + bytes
      reads.at = now
    }
  }

  /**
   * Whether the workspace read at least its share lately: as much as the mean of the workspaces that read
   * anything. One workspace alone always has; of one heavy reader among light ones, only it has. Forgets the
   * workspaces whose reads have faded as it goes (it runs only while memory is short).
   */
  readAtLeastItsShare(workspace: string): boolean {
    const now = this.clock()
    let total = 0
    let count = 0
    for (const [key, reads] of this.byWorkspace) {
      const bytes = decayed(reads, now)
      if (bytes < FORGOTTEN_BYTES) {
        this.byWorkspace.delete(key)
        continue
      }
      total += bytes
      count++
    }
    const own = this.byWorkspace.get(workspace)
    return own !== undefined && decayed(own, now) * count >= total
  }
}
