import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Config } from '../../src/config.js'
import type { StoreKind } from './stores.js'

/** The authorization settings of test servers; a test that changes one spreads these first. */
export const TEST_AUTHORIZATION: Config['authorization'] = {
  stateTtlMs: 600_000,
  refreshMarginMs: 60_000,
  refreshWaitMs: 15_000,
  // Generous: suites drive many authorizations from one address; the limits have their own tests.
  rateLimitPerMinute: 10_000,
  workspaceRateLimitPerMinute: 10_000,
  maxPendingPerWorkspace: 1000,
}

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
    bodyTimeoutMs: 60_000,
    maxConnections: 10_000,
    logInboundCalls: true,
    apiCallLog: { maxPerWorkspace: 100_000, retentionMs: 60 * 86_400_000, pruneEveryMs: 10_000 },
    outbound: {
      allowAddresses: ['loopback'],
      maxBodyBytes: 32 * 1024 * 1024,
      answerDeadlineMs: 60_000,
      operationDeadlineMs: 600_000,
      connectionConcurrency: 8,
      connectionQueue: 64,
      workspaceConcurrency: 256,
      workspaceQueue: 1024,
      heapShedPercent: 75,
    },
    webhooks: {
      minuteMs: 200,
      tickMs: 50,
      deliveryTimeoutMs: 2_000,
      maxAttempts: 20,
      unhealthyAfter: 3,
      leaseMs: 3_000,
      checkDeadlineMs: 600_000,
      concurrency: 16,
      stopTimeoutMs: 5_000,
      nativeCheckMinutes: 60,
      maxPerWorkspace: 10_000,
      jobRunner: store === 'postgres' ? 'pg-boss' : 'in-process',
    },
    authorization: TEST_AUTHORIZATION,
    ...overrides,
  }
}
