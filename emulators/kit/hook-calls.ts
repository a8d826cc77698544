/**
 * The plumbing every emulator's webhook calls share: one POST (redirects not followed, the answer read only to
 * free the socket) and retries waiting on timers that `close()` clears. What is retried, when and with which
 * body are each provider's rules, kept and cited in its own emulator.
 */

/** A call's outcome: the receiver's status, or `error` when no answer came. */
export type HookCallStatus = number | 'error'

export async function postHookCall(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs?: number,
): Promise<HookCallStatus> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      ...(timeoutMs !== undefined ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    })
    await res.arrayBuffer().catch(() => undefined)
    return res.status
  } catch {
    return 'error'
  }
}

/** Retries waiting for their time; none runs once closed. */
export class HookRetries {
  private readonly timers = new Set<NodeJS.Timeout>()
  private isClosed = false

  get closed(): boolean {
    return this.isClosed
  }

  get pending(): number {
    return this.timers.size
  }

  after(delayMs: number, again: () => void): void {
    if (this.isClosed) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      again()
    }, delayMs)
    timer.unref()
    this.timers.add(timer)
  }

  close(): void {
    this.isClosed = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
