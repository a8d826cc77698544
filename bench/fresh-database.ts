/** A PostgreSQL database of its own for one benchmark, created on BENCH_DATABASE_URL's server and dropped after. */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/**
 * Runs `use` with the URL of a new, empty database; answers `unreachable` with the reason when the server
 * cannot be reached, so the caller can say the part was skipped.
 */
export async function withFreshDatabase<T>(
  use: (url: string) => Promise<T>,
): Promise<{ result: T } | { unreachable: string }> {
  const admin = new pg.Client({ connectionString: DATABASE_URL })
  try {
    await admin.connect()
  } catch (err) {
    return { unreachable: `PostgreSQL at BENCH_DATABASE_URL unreachable (${String(err)})` }
  }
  const database = `unigate_bench_${randomBytes(4).toString('hex')}`
  try {
    await admin.query(`CREATE DATABASE ${database}`)
    const url = new URL(DATABASE_URL)
    url.pathname = `/${database}`
    return { result: await use(url.toString()) }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined)
    await admin.end()
  }
}
