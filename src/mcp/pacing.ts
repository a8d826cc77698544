import { nextTurn } from '../loop-slices.js'

/**
 * How many entries of one MCP request (a JSON-RPC batch holds up to 100) run at a time. The SDK's transport
 * hands every entry of a batch to the server at once, and a workspace tool runs in-process (app.inject), so
 * a batch of 100 ran as one stretch of synchronous work: 100 integration lists held every other request of
 * the process 519 ms, 10 API-call log listings 10 s. A few at a time still overlap entries that wait on a
 * provider; they start one a turn of the event loop (pacer).
 */
export const BATCH_CONCURRENCY = 4

/**
 * Runs the work it is handed at most `concurrency` at a time, in the order handed, and starts at most one
 * a turn of the event loop: between two starts the process reads and answers other requests (the poll
 * phase comes before `setImmediate` callbacks). Several may wait on I/O at once, but the synchronous work
 * of two never runs back to back (an in-process tool, such as a workspace tool, is mostly that).
 */
export function pacer(concurrency: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  // The turn the last start waits for: each start waits for the one before it, then for a turn of its own.
  let starts: Promise<void> = Promise.resolve()
  return async (work) => {
    if (running < concurrency) running++
    // The slot of an entry that finished passes straight to this one (running is unchanged).
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      const turn = starts.then(nextTurn)
      starts = turn
      await turn
      return await work()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
}
