import type { Fault } from './faults.js'
import type { RecordedRequest } from './recorder.js'
import { type EmulatorServer, listen } from './server.js'

/** What starting an emulator answers: its address, its request record and fault queue, its state, a way to stop it. */
export interface EmulatorHandle<State> {
  readonly url: string
  readonly state: State
  requests(): RecordedRequest[]
  clearRequests(): void
  fault(fault: Fault): void
  clearFaults(): void
  close(): Promise<void>
}

export interface ListenOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number
  /** Default 127.0.0.1. */
  readonly host?: string
}

/** Starts `server` listening and answers the standard handle over it and the emulator's `state`. */
export async function listenEmulator<State>(
  server: EmulatorServer,
  state: State,
  options: ListenOptions = {},
): Promise<EmulatorHandle<State>> {
  const { app, recorder, faults } = server
  const url = await listen(app, options.port ?? 0, options.host ?? '127.0.0.1')
  return {
    url,
    state,
    requests: () => recorder.all(),
    clearRequests: () => recorder.clear(),
    fault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    close: () => app.close(),
  }
}

/** The end of an emulator's seeded data window in epoch milliseconds: `until` (ISO-8601) or else `fallback`. */
export function parseUntil(until: string | undefined, fallback: string): number {
  const ms = Date.parse(until ?? fallback)
  if (Number.isNaN(ms)) throw new Error(`until: '${until}' is not an ISO-8601 date`)
  return ms
}
