import { getHeapStatistics } from 'node:v8'
import { ApiError } from '../errors.js'
import { RecentReads } from './recent-reads.js'

/**
 * The memory the process holds for JavaScript, and the most V8 lets its heap grow to (`--max-old-space-size`,
 * or its default). `used` counts the heap and the memory outside it that JavaScript objects hold (Buffers: a
 * provider answer's bytes, Amplitude's unpacked export text), which the heap figure alone leaves out.
 */
export interface HeapUse {
  readonly used: number
  readonly limit: number
}

export const v8HeapUse = (): HeapUse => {
  const stats = getHeapStatistics()
  return { used: stats.used_heap_size + stats.external_memory, limit: stats.heap_size_limit }
}

/** Seconds a refused caller is asked to wait: a few garbage collections' worth. */
const RETRY_AFTER_SECONDS = 5

/** The 503 of a process short of memory: a moment's state of this process, not the provider's nor the caller's. */
export class MemoryShortError extends ApiError {
  constructor(percent: number) {
    super(
      503,
      `this Unigate process is short of memory (its heap is past UNIGATE_HEAP_SHED_PERCENT, ${percent}% of ` +
        'its limit) and reads no more provider answers for the workspaces that read the most lately until ' +
        'some is freed; retry shortly',
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    )
    this.name = 'MemoryShortError'
  }
}

/**
 * Stops reading provider answers into memory while the process's heap is past `percent` of its limit. Each
 * answer is capped in bytes and each operation in answer bytes (http-client.ts), but parsed JSON can take
 * several times its text (about 1.2x for typical rows, twenty times for a page of empty objects such as a
 * connection's own `api_url` can answer), and requests run side by side: without this, a few such requests
 * at once take the heap to V8's limit, and the process, with every tenant's requests, dies. A refused call is
 * a 503 with Retry-After; the operation that holds the memory fails with it too and frees it. A process that
 * holds little never gets near the mark: V8 collects garbage long before its heap reaches the limit.
 *
 * One tenant must not stop the others (DESIGN.md section 9): past the mark, only the calls of workspaces that
 * read at least their share of answer bytes lately (RecentReads) are refused, so a workspace whose large
 * answers filled the heap waits while the others' calls go on; past the hard mark, halfway from the mark to
 * the limit, every call is refused (and a call made for no workspace always is). A connection's verification
 * is a call for its workspace like the workspace's reads, but for the hosted key page's, counted under the
 * page's own key (keyPageSlots): its visitors' answers are judged apart from the workspace's own reads.
 */
export class HeapGuard {
  private readonly reads = new RecentReads()
  private readonly hardPercent: number

  constructor(
    private readonly percent: number,
    private readonly heapUse: () => HeapUse = v8HeapUse,
  ) {
    this.hardPercent = percent + (100 - percent) / 2
  }

  /**
   * Throws MemoryShortError when the heap is past the mark and the call's workspace is one that read the most
   * lately, or past the hard mark; one V8 statistics read (about a microsecond) while memory is not short.
   */
  check(workspace?: string): void {
    const { used, limit } = this.heapUse()
    if (used * 100 <= limit * this.percent) return
    const light = workspace !== undefined && !this.reads.readAtLeastItsShare(workspace)
    if (light && used * 100 <= limit * this.hardPercent) return
    throw new MemoryShortError(this.percent)
  }

  /** Counts an answer read into memory for a workspace. */
  answered(workspace: string | undefined, bytes: number): void {
    if (workspace !== undefined) this.reads.add(workspace, bytes)
  }
}
