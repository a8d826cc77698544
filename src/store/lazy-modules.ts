import { createRequire } from 'node:module'
import type pg from 'pg'
import type PgBoss from 'pg-boss'

/**
 * The PostgreSQL client and pg-boss, loaded when a process first uses PostgreSQL rather than at start-up:
 * together about a fifth of the embedded (SQLite) server's start-up, which never uses them. Both are
 * CommonJS, so `require` loads them synchronously where a constructor needs them.
 */
const require = createRequire(import.meta.url)

export function pgModule(): typeof pg {
  return require('pg') as typeof pg
}

export function pgBossModule(): typeof PgBoss {
  return require('pg-boss') as typeof PgBoss
}
