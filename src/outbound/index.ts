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
export { type GuardedAgentOptions, guardedAgent } from './guarded-agent.js'
