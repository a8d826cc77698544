export { type ApiCallView, apiCallView, type NewApiCall } from './api-call.js'
export { type ApiCallFilter, ApiCallLog } from './api-call-log.js'
export { installInboundCallLog, noteConnection, noteProviderTime, noteRelayedAnswer } from './inbound.js'
export { apiCallRoutes } from './routes.js'
