import type { Agent } from 'undici'
import type { GuardedAgentOptions } from './guarded-agent.js'

type Undici = typeof import('undici')

/** undici's request API and the guarded agent every call of one client goes through. */
export interface OutboundKit {
  readonly undici: Undici
  readonly agent: Agent
}

/**
 * undici and a guarded agent (guarded-agent.ts), loaded by the first outbound call instead of at start-up:
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
    this.loading ??= Promise.all([import('undici'), import('./guarded-agent.js')]).then(
      async ([undici, { guardedAgent }]) => {
        const agent = guardedAgent(this.options)
        // Closed before its first call: the agent refuses calls as a closed one always did.
        if (this.closed) await agent.close()
        this.loaded = { undici, agent }
        return this.loaded
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
