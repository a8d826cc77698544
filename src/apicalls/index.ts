export { type ApiCallView, apiCallView, type NewApiCall } from './api-call.js'
export { type ApiCallFilter, ApiCallLog } from './api-call-log.js'
export {
  type InboundFacts,
  type InboundNote,
  inboundCall,
  inboundNoteOf,
  installInboundCallLog,
  noteConnection,
  noteError,
  noteProviderTime,
  noteRelayedAnswer,
  passthroughName,
} from './inbound.js'
export { ApiCallRetention, PRUNE_SLICE } from './retention.js'
export { apiCallRoutes } from './routes.js'
