import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Config } from '../../src/config.js'
import type { StoreKind } from './stores.js'

/** A configuration for one test server: its own data folder or PostgreSQL database, a random port. */
export function testConfig(store: StoreKind, overrides: Partial<Config> = {}): Config {
  return {
    host: '127.0.0.1',
    port: 0,
    publicUrl: 'http://127.0.0.1',
    region: 'na',
    regionUrls: { na: 'http://127.0.0.1', eu: undefined, au: undefined },
    ...(store === 'postgres' ? { databaseUrl: process.env.TEST_DATABASE_URL } : {}),
    dataDir: mkdtempSync(join(tmpdir(), 'unigate-test-')),
    masterKey: randomBytes(32),
    logLevel: 'silent',
    providerTimeoutMs: 3_000,
    providerMaxRetries: 2,
    providerMaxRetryWaitMs: 2_000,
    keyRevocationRefreshMs: 200,
    bodyLimitBytes: 1_048_576,
    ...overrides,
  }
}
