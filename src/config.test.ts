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
})
