/**
 * Long synchronous work cut into slices, with a turn of the event loop between them, so one webhook check
 * of many records does not hold every request of the process. A slice ends after `maxUnits` units of work
 * (records, rows) or `maxText` characters of text they carried, whichever comes first: counted in work, not
 * time, so where the loop turns does not depend on the machine's speed.
 */
export class LoopSlices {
  private units = 0
  private text = 0

  constructor(
    private readonly maxUnits: number,
    private readonly maxText: number,
  ) {}

  /**
   * Counts work done; answers a turn of the event loop to await once the slice is spent, else undefined (no
   * promise per unit of work: most calls only count).
   */
  spend(units: number, text = 0): Promise<void> | undefined {
    this.units += units
    this.text += text
    if (this.units < this.maxUnits && this.text < this.maxText) return undefined
    this.units = 0
    this.text = 0
    return nextTurn()
  }
}

/** One turn of the event loop: timers and I/O that waited get their chance. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve))
