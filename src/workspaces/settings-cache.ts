import type { ChangeNotifier } from '../store/change-notifier.js'
import type { Workspace, WorkspaceStore } from './workspaces.js'

/**
 * Workspace settings for the request path, read once and kept for ttlMs. A change made by this process
 * is seen at once; one made by another process as soon as the change notifier (PostgreSQL NOTIFY) tells
 * of it, and at the latest within ttlMs.
 */
export class WorkspaceSettingsCache {
  private readonly cache = new Map<string, { workspace: Workspace | undefined; expires: number }>()
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
    if (generation === this.generation) this.cache.set(id, { workspace, expires: Date.now() + this.ttlMs })
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
