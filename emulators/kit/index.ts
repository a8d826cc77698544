export { closeOnSignals, wholeNumberArg } from './cli.js'
export { type Fault, FaultError, FaultQueue, parseFault } from './faults.js'
export { type EmulatorHandle, type ListenOptions, listenEmulator, parseUntil } from './handle.js'
export {
  DAY_MS,
  HOUR_MS,
  isoMicros,
  isoMicrosOffset,
  isUuid,
  MINUTE_MS,
  SECOND_MS,
  uuidV4,
  uuidV7,
  uuidV7Millis,
} from './ids.js'
export { formOf, withBasicClient } from './oauth-form.js'
export { installFormParser, installTextJsonParser } from './parsers.js'
export { hash32, SeededRandom } from './random.js'
export { type RecordedRequest, RequestRecorder } from './recorder.js'
export {
  CONTROL_PREFIX,
  createEmulatorServer,
  type EmulatorServer,
  type EmulatorServerOptions,
  type FaultResponse,
  listen,
} from './server.js'
