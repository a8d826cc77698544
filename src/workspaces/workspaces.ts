import { randomBytes } from 'node:crypto'
import { newId } from '../crypto/ids.js'
import type { SecretBox } from '../crypto/keys.js'
import { type Db, nowIso, type WorkspaceTable } from '../store/index.js'
import { normalizeOrigin } from './origins.js'

export interface Workspace {
  readonly id: string
  readonly name: string
  readonly slow_fields_opt_in: boolean
  /** Origins the authorization flow may send end users back to (success and failure redirects). */
  readonly allowed_redirect_origins: string[]
  readonly created_at: string
  readonly updated_at: string
}

export interface WorkspaceSettingsPatch {
  readonly name?: string
  readonly slow_fields_opt_in?: boolean
  /** Replaces the list; entries are normalized with normalizeOrigin. */
  readonly allowed_redirect_origins?: readonly string[]
}

function toWorkspace(row: WorkspaceTable): Workspace {
  return {
    id: row.id,
    name: row.name,
    slow_fields_opt_in: row.slow_fields_opt_in === 1,
    allowed_redirect_origins: JSON.parse(row.allowed_redirect_origins) as string[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** Workspaces and their secrets. The secret signs webhooks and redirects; it is sealed at rest. */
export class WorkspaceStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  async create(name: string): Promise<{ workspace: Workspace; secret: string }> {
    const now = nowIso()
    const secret = randomBytes(32).toString('base64url')
    const row: WorkspaceTable = {
      id: newId('ws'),
      name,
      secret_sealed: this.box.seal(secret),
      slow_fields_opt_in: 0,
      allowed_redirect_origins: '[]',
      created_at: now,
      updated_at: now,
    }
    await this.db.insertInto('workspaces').values(row).execute()
    return { workspace: toWorkspace(row), secret }
  }

  async get(id: string): Promise<Workspace | undefined> {
    const row = await this.db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst()
    return row && toWorkspace(row)
  }

  async list(): Promise<Workspace[]> {
    const rows = await this.db.selectFrom('workspaces').selectAll().orderBy('created_at').execute()
    return rows.map(toWorkspace)
  }

  async secretOf(id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('workspaces')
      .select('secret_sealed')
      .where('id', '=', id)
      .executeTakeFirst()
    return row && this.box.open(row.secret_sealed)
  }

  async update(id: string, patch: WorkspaceSettingsPatch): Promise<Workspace | undefined> {
    const values: Partial<WorkspaceTable> = { updated_at: nowIso() }
    if (patch.name !== undefined) values.name = patch.name
    if (patch.slow_fields_opt_in !== undefined) values.slow_fields_opt_in = patch.slow_fields_opt_in ? 1 : 0
    if (patch.allowed_redirect_origins !== undefined) {
      const origins = [...new Set(patch.allowed_redirect_origins.map(normalizeOrigin))]
      values.allowed_redirect_origins = JSON.stringify(origins)
    }
    await this.db.updateTable('workspaces').set(values).where('id', '=', id).execute()
    return this.get(id)
  }
}
