import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AllowedAddress } from './address-policy.js'
import { guardedAgent } from './guarded-agent.js'

describe('guardedAgent', () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('internal'))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const get = async (url: string, allowed: AllowedAddress[]) => {
    const agent = guardedAgent({ allowAddresses: allowed, connectTimeoutMs: 2000, connections: 1 })
    try {
      const res = await request(url, { dispatcher: agent })
      return `${res.statusCode} ${await res.body.text()}`
    } catch (err) {
      return String((err as { code?: string }).code)
    } finally {
      await agent.close()
    }
  }

  it('refuses a literal loopback address and a name resolving to one, unless the range is allowed', async () => {
    expect(await get(`http://127.0.0.1:${port}/`, [])).toBe('EADDRREFUSED_BY_POLICY')
    expect(await get(`http://localhost:${port}/`, [])).toBe('EADDRREFUSED_BY_POLICY')
    expect(await get(`http://[::ffff:127.0.0.1]:${port}/`, [])).toBe('EADDRREFUSED_BY_POLICY')
    expect(await get(`http://127.0.0.1:${port}/`, ['loopback'])).toBe('200 internal')
  })

  it('reaches an allowed endpoint, and no other port of its address', async () => {
    const allowed: AllowedAddress[] = [`127.0.0.1:${port}`]
    expect(await get(`http://127.0.0.1:${port}/`, allowed)).toBe('200 internal')
    expect(await get(`http://[::ffff:127.0.0.1]:${port}/`, allowed)).toBe('200 internal')
    expect(await get(`http://127.0.0.1:${port + 1}/`, allowed)).toBe('EADDRREFUSED_BY_POLICY')
    expect(await get('http://127.0.0.1/', allowed)).toBe('EADDRREFUSED_BY_POLICY')
  })
})
