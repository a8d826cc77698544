/**
 * Writes that arrive together go out together: each call waits for its own item to be written, and every
 * item given while the event loop was busy with one round of I/O, or while the previous write was still
 * running, is written by one `write` call (one transaction, one commit). At most one write runs at a time:
 * the items given meanwhile make the next one, so the busier the store, the larger each group and the fewer
 * its round trips (a synchronous SQLite write is over before the next item can arrive). A caller sees
 * exactly what a write of its item alone would give it.
 */
export function groupedWrites<I, O>(write: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }
  let queue: Waiting[] = []
  let scheduled = false
  let writing = false
  const flush = async () => {
    scheduled = false
    const batch = queue
    queue = []
    writing = true
    try {
      const out = await write(batch.map((w) => w.item))
      for (const [i, w] of batch.entries()) w.resolve(out[i]!)
    } catch (err) {
      for (const w of batch) w.reject(err)
    } finally {
      writing = false
      if (queue.length > 0) schedule()
    }
  }
  // After this round of I/O callbacks, so the answers that arrived with this one share its commit.
  const schedule = () => {
    scheduled = true
    setImmediate(() => void flush())
  }
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject })
      if (!scheduled && !writing) schedule()
    })
}
