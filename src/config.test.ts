import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.js'

const base = () => ({
  UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-config-')),
  UNIGATE_MASTER_KEY: randomBytes(32).toString('base64'),
})

describe('loadConfig', () => {
  it("keeps a workspace's provider calls below the sockets an origin shares", () => {
    expect(loadConfig(base()).outbound.workspaceConcurrency).toBe(256)
    expect(
      loadConfig({ ...base(), UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY: '1023' }).outbound.workspaceConcurrency,
    ).toBe(1023)
    expect(() => loadConfig({ ...base(), UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY: '1024' })).toThrow(
      'UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY must be an integer from 1 to 1023, got "1024"',
    )
    expect(() => loadConfig({ ...base(), UNIGATE_PROVIDER_CONNECTION_QUEUE: '-1' })).toThrow(
      'UNIGATE_PROVIDER_CONNECTION_QUEUE must be an integer >= 0, got "-1"',
    )
  })

  it('allows outbound ranges, or single addresses with their ports', () => {
    const allow = (value: string) =>
      loadConfig({ ...base(), UNIGATE_OUTBOUND_ALLOW_ADDRESSES: value }).outbound.allowAddresses
    expect(allow('private, 127.0.0.1:8123,[::1]:8123')).toEqual(['private', '127.0.0.1:8123', '[::1]:8123'])
    expect(() => allow('localhost:8123')).toThrow(
      'UNIGATE_OUTBOUND_ALLOW_ADDRESSES: localhost:8123 unknown; use any of loopback, private, link-local, or a literal address with its port',
    )
  })

  it('waits 15 s for a token refresh another request is running unless told otherwise, never 0', () => {
    expect(loadConfig(base()).authorization.refreshWaitMs).toBe(15_000)
    expect(
      loadConfig({ ...base(), UNIGATE_TOKEN_REFRESH_WAIT_SECONDS: '40' }).authorization.refreshWaitMs,
    ).toBe(40_000)
    expect(() => loadConfig({ ...base(), UNIGATE_TOKEN_REFRESH_WAIT_SECONDS: '0' })).toThrow(
      'UNIGATE_TOKEN_REFRESH_WAIT_SECONDS must be an integer >= 1, got "0"',
    )
  })

  it('keeps 100,000 API calls a workspace for at most 60 days unless told otherwise, and refuses bounds that keep none', () => {
    expect(loadConfig(base()).apiCallLog).toMatchObject({
      maxPerWorkspace: 100_000,
      retentionMs: 60 * 86_400_000,
    })
    expect(
      loadConfig({
        ...base(),
        UNIGATE_API_CALL_LOG_MAX_PER_WORKSPACE: '5000',
        UNIGATE_API_CALL_LOG_RETENTION_DAYS: '7',
      }).apiCallLog,
    ).toMatchObject({ maxPerWorkspace: 5000, retentionMs: 7 * 86_400_000 })
    for (const bad of ['0', '-1', '1.5', 'lots']) {
      expect(() => loadConfig({ ...base(), UNIGATE_API_CALL_LOG_MAX_PER_WORKSPACE: bad })).toThrow(
        `UNIGATE_API_CALL_LOG_MAX_PER_WORKSPACE must be an integer >= 1, got "${bad}"`,
      )
    }
    for (const bad of ['0', '2.5', '36501', 'forever']) {
      expect(() => loadConfig({ ...base(), UNIGATE_API_CALL_LOG_RETENTION_DAYS: bad })).toThrow(
        `UNIGATE_API_CALL_LOG_RETENTION_DAYS must be an integer from 1 to 36500, got "${bad}"`,
      )
    }
  })
})
