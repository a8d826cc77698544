/**
 * Calls `tick` every `everyMs` without overlapping runs: a slow tick delays the next instead of piling up.
 * Errors are reported, never thrown, so one bad tick does not stop the schedule.
 */
export class Ticker {
  private timer: NodeJS.Timeout | undefined
  private current: Promise<void> | undefined
  private stopped = true

  constructor(
    private readonly everyMs: number,
    private readonly tick: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false
    this.schedule(0)
  }

  private schedule(ms: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.current = this.tick()
        .catch(this.onError)
        .finally(() => {
          this.current = undefined
          this.schedule(this.everyMs)
        })
    }, ms)
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.current
  }
}
