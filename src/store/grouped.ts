/**
 * Writes that arrive together go out together: each call waits for its own item to be written, and every
 * item given while the event loop was busy with one round of I/O is written by one `write` call (one
 * transaction, one commit). A caller sees exactly what a write of its item alone would give it.
 */
export function groupedWrites<I, O>(write: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }
  let queue: Waiting[] = []
  const flush = async () => {
    const batch = queue
    queue = []
    try {
      const out = await write(batch.map((w) => w.item))
      for (const [i, w] of batch.entries()) w.resolve(out[i]!)
    } catch (err) {
      for (const w of batch) w.reject(err)
    }
  }
  return (item) =>
    new Promise<O>((resolve, reject) => {
      // After this round of I/O callbacks, so the answers that arrived with this one share its commit.
      if (queue.length === 0) setImmediate(() => void flush())
      queue.push({ item, resolve, reject })
    })
}
