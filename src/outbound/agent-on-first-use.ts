import type { GuardedAgentOptions } from './guarded-agent.js'
import type { undiciKit } from './undici-kit.js'

/** undici's `request` and `stream`, and the guarded agent every call of one client goes through. */
export type OutboundKit = ReturnType<typeof undiciKit>

/**
 * undici and a guarded agent (undici-kit.ts), loaded by the first outbound call instead of at start-up:
 * undici's index loads fetch, WebSocket, its caches and mocks as well, about a seventh of the CPU a start
 * took (issue 12), and nothing before the first provider call or webhook delivery needs it. The agent is
 * the same one the eager version made, with the same options, made once.
 */
export class GuardedAgentOnFirstUse {
  private loaded: OutboundKit | undefined
  private loading: Promise<OutboundKit> | undefined
  private closed = false

  constructor(private readonly options: GuardedAgentOptions) {}

  /** The kit; the first call loads it (later calls get it without waiting on a new promise). */
  kit(): OutboundKit | Promise<OutboundKit> {
    if (this.loaded) return this.loaded
    this.loading ??= import('./undici-kit.js').then(
      async ({ undiciKit }) => {
        const kit = undiciKit(this.options)
        // Closed before its first call: the agent refuses calls as a closed one always did.
        if (this.closed) await kit.agent.close()
        this.loaded = kit
        return kit
      },
      (err: unknown) => {
        this.loading = undefined
        throw err
      },
    )
    return this.loading
  }

  async close(): Promise<void> {
    this.closed = true
    const kit = this.loaded ?? (await this.loading?.catch(() => undefined))
    await kit?.agent.close()
  }
}
