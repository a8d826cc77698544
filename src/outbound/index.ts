export {
  type AllowedAddress,
  type AllowedEndpoint,
  allowedEndpoint,
  GUARDED_RANGES,
  type GuardedRange,
  guardedLookup,
  literalHostRefusal,
  outboundUrlProblem,
  POLICY_REFUSAL_CODE,
  refusedReason,
  type UrlRules,
} from './address-policy.js'
export { GuardedAgentOnFirstUse, type OutboundKit } from './agent-on-first-use.js'
export {
  CallerLeftError,
  ConnectionLimiter,
  type ConnectionLimits,
  type SlotWait,
} from './connection-limiter.js'
// Not `guardedAgent` itself: importing it loads undici, which agent-on-first-use.ts defers to a first call.
export type { GuardedAgentOptions } from './guarded-agent.js'
export {
  type BufferedAnswer,
  type OutboundAddress,
  type OutboundCall,
  type OutboundMethod,
  type OutboundTarget,
  outboundFailure,
  outboundTarget,
  ProviderTransport,
  type ProviderTransportSettings,
} from './provider-transport.js'
export { tokenRequestSlot } from './token-calls.js'
