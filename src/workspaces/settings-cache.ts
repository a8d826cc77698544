import type { Workspace, WorkspaceStore } from './workspaces.js'

/**
 * Workspace settings for the request path, read once and kept for ttlMs. A change made by this process
 * is seen at once; one made by another process within ttlMs.
 */
export class WorkspaceSettingsCache {
  private readonly cache = new Map<string, { workspace: Workspace | undefined; expires: number }>()

  constructor(
    private readonly store: WorkspaceStore,
    private readonly ttlMs: number,
  ) {}

  async get(id: string): Promise<Workspace | undefined> {
    const hit = this.cache.get(id)
    if (hit && hit.expires > Date.now()) return hit.workspace
    const workspace = await this.store.get(id)
    this.cache.set(id, { workspace, expires: Date.now() + this.ttlMs })
    return workspace
  }

  invalidate(id: string): void {
    this.cache.delete(id)
  }
}
