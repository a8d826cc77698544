/**
 * What `run` answers, and how many turns the event loop took while it ran: other work waiting on the loop (a
 * request, a timer) gets one between slices of long synchronous work. Counted by a callback that asks for the
 * next turn each time it runs; a run that never yields leaves it at 0. No clock is read.
 */
export async function turnsDuring<T>(run: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0
  let done = false
  const turn = () => {
    if (done) return
    turns++
    setImmediate(turn)
  }
  setImmediate(turn)
  const result = await run()
  done = true
  return { result, turns }
}
