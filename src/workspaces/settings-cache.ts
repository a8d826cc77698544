import type { ChangeNotifier } from '../store/change-notifier.js'
import type { Workspace, WorkspaceStore } from './workspaces.js'

/** Workspaces whose settings one process keeps; past this the memory starts over (it only saves reads). */
const MAX_CACHED = 10_000

/**
 * Workspace settings for the request path, read once and kept for ttlMs. A change made by this process
 * is seen at once; one made by another process as soon as the change notifier (PostgreSQL NOTIFY) tells
 * of it, and at the latest within ttlMs.
 */
export class WorkspaceSettingsCache {
  private readonly cache = new Map<string, { workspace: Workspace; expires: number }>()
  /** Bumped on every invalidation: a read that overlapped one may be stale and is not cached. */
  private generation = 0

  constructor(
    private readonly store: WorkspaceStore,
    private readonly ttlMs: number,
    private readonly changes?: ChangeNotifier,
  ) {
    changes?.subscribe('workspace', {
      invalidate: (id) => this.drop(id),
      invalidateAll: () => {
        this.generation++
        this.cache.clear()
      },
    })
  }

  async get(id: string): Promise<Workspace | undefined> {
    const hit = this.cache.get(id)
    if (hit && hit.expires > Date.now()) return hit.workspace
    const generation = this.generation
    const workspace = await this.store.get(id)
    // Only workspaces that exist are kept: the public endpoints look up any id they are given, without a key,
    // and each unknown one kept (up to a URL's 16 KB) let anyone grow the heap without bound.
    if (!workspace) return undefined
    if (generation === this.generation) {
      if (this.cache.size >= MAX_CACHED) this.cache.clear()
      this.cache.set(id, { workspace, expires: Date.now() + this.ttlMs })
    }
    return workspace
  }

  /** The workspace's settings changed (the write has committed): forget them here and everywhere. */
  async invalidate(id: string): Promise<void> {
    this.drop(id)
    await this.changes?.publish('workspace', id)
  }

  private drop(id: string): void {
    this.generation++
    this.cache.delete(id)
  }
}
