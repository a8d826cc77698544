import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { Db } from '../../src/store/index.js'

export type StoreKind = 'sqlite' | 'postgres'

/**
 * The stores the suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. In CI a missing
 * TEST_DATABASE_URL is an error, so the PostgreSQL tests can never silently skip there.
 */
export function storeKinds(): StoreKind[] {
  if (process.env.TEST_DATABASE_URL) return ['sqlite', 'postgres']
  if (process.env.CI)
    throw new Error('CI must set TEST_DATABASE_URL: the PostgreSQL-backed tests may not skip in CI')
  return ['sqlite']
}

export function uniqueSchema(): string {
  return `t_${randomBytes(6).toString('hex')}`
}

/** Removes a test's PostgreSQL schema, so repeated runs do not pile schemas up in the shared database. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(`drop schema if exists "${schema.replaceAll('"', '')}" cascade`)
  } finally {
    await client.end()
  }
}

/**
 * A PostgreSQL database of a test's own, for server processes that share one with its default schemas:
 * `create` makes it and answers its URL, `drop` removes it (also when the test failed half way).
 */
export function scratchDatabase(prefix: string): { create(): Promise<string>; drop(): Promise<void> } {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  return {
    async create() {
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      const url = new URL(process.env.TEST_DATABASE_URL!)
      url.pathname = `/${name}`
      return url.toString()
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined)
      await admin.end()
    },
  }
}

/** A bare workspace row (no key, no secret worth the name), for store tests whose rows must reference one. */
export async function insertWorkspaceRow(db: Db, id: string, name: string): Promise<void> {
  await db
    .insertInto('workspaces')
    .values({
      id,
      name,
      secret_sealed: 'sealed',
      slow_fields_opt_in: 0,
      allowed_redirect_origins: '[]',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    })
    .execute()
}
