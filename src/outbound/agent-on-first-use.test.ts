import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GuardedAgentOnFirstUse } from './agent-on-first-use.js'
import { guardedAgent } from './guarded-agent.js'

describe('GuardedAgentOnFirstUse', () => {
  let server: Server
  let url: string
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('internal'))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const options = { connectTimeoutMs: 2000, connections: 1 }

  it('makes one guarded agent for concurrent first calls, and keeps the address policy', async () => {
    const refusing = new GuardedAgentOnFirstUse({ ...options, allowAddresses: [] })
    const [a, b] = await Promise.all([refusing.kit(), refusing.kit()])
    expect(a.agent).toBe(b.agent)
    expect(refusing.kit()).toBe(a)
    const refused = await a.request(url, { dispatcher: a.agent }).catch((e: { code?: string }) => e)
    expect((refused as { code?: string }).code).toBe('EADDRREFUSED_BY_POLICY')
    await refusing.close()

    const allowing = new GuardedAgentOnFirstUse({ ...options, allowAddresses: ['loopback'] })
    const { request: send, agent } = await allowing.kit()
    const res = await send(url, { dispatcher: agent })
    expect(`${res.statusCode} ${await res.body.text()}`).toBe('200 internal')
    await allowing.close()
  })

  it('refuses calls after close as a closed agent does, also when closed before its first call', async () => {
    const eager = guardedAgent({ ...options, allowAddresses: ['loopback'] })
    await eager.close()
    const refusal = await request(url, { dispatcher: eager }).catch((e: { code?: string }) => e.code)
    expect(refusal).toMatch(/^UND_ERR_/)

    const agent = new GuardedAgentOnFirstUse({ ...options, allowAddresses: ['loopback'] })
    await agent.close()
    const kit = await agent.kit()
    const failed = await kit.request(url, { dispatcher: kit.agent }).catch((e: { code?: string }) => e.code)
    expect(failed).toBe(refusal)
  })
})
