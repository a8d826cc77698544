export {
  GUARDED_RANGES,
  type GuardedRange,
  guardedLookup,
  literalHostRefusal,
  outboundUrlProblem,
  POLICY_REFUSAL_CODE,
  refusedReason,
  type UrlRules,
} from './address-policy.js'
export { ConnectionLimiter, type ConnectionLimits } from './connection-limiter.js'
export { type GuardedAgentOptions, guardedAgent } from './guarded-agent.js'
export {
  type BufferedAnswer,
  type OutboundCall,
  type OutboundMethod,
  outboundFailure,
  ProviderTransport,
  type ProviderTransportSettings,
} from './provider-transport.js'
