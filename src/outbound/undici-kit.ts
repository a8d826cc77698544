import { request, stream } from 'undici'
import { type GuardedAgentOptions, guardedAgent } from './guarded-agent.js'

/**
 * undici's request API with a guarded agent: the module agent-on-first-use.ts imports on a first call.
 * It imports undici itself (statically), so the bundle gives it undici's named exports; a bundled dynamic
 * `import('undici')` of the CommonJS package would only have a default export.
 */
export function undiciKit(options: GuardedAgentOptions) {
  return { request, stream, agent: guardedAgent(options) }
}
