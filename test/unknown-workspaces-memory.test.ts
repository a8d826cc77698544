import { randomBytes } from 'node:crypto'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, startAuthServer } from './support/auth-server.js'

/**
 * The public endpoints that name a workspace (the embed script, the workspace's integration list, the auth
 * endpoint) look it up without a key. Each unknown id asked for must not stay in memory: otherwise anyone can
 * grow the server's heap without bound, one random id (up to the URL's 16 KB) per request, and the embed
 * script is not even rate limited.
 */
describe('workspace ids that name no workspace are not kept', () => {
  let s: AuthServer
  beforeAll(async () => {
    s = await startAuthServer('sqlite')
  })
  afterAll(async () => {
    await s?.close()
  })

  /** The characters of workspace ids the settings cache holds (its keys), by reading its map. */
  const heldIdCharacters = () => {
    const cache = (s.services.workspaceSettings as unknown as { cache: Map<string, unknown> }).cache
    return [...cache.keys()].reduce((n, id) => n + id.length, 0)
  }

  it('the embed script, the integration list and the auth endpoint leave nothing behind for an unknown id', async () => {
    const before = heldIdCharacters()
    const paths = (id: string) => [
      `/docs/unified.js?wid=${id}&did=root`,
      `/unified/integration/workspace/${id.slice(0, 400)}`,
      `/unified/integration/auth/${id.slice(0, 400)}/posthog`,
    ]
    for (let i = 0; i < 20; i++) {
      const id = `ws_${randomBytes(3000).toString('hex')}`
      for (const path of paths(id)) {
        const res = await request(`${s.url}${path}`)
        await res.body.text()
        expect(res.statusCode).toBe(404)
      }
    }
    expect(heldIdCharacters() - before).toBe(0)
  })

  it('a real workspace is still found', async () => {
    const res = await request(`${s.url}/docs/unified.js?wid=${s.workspaceId}&did=root`)
    await res.body.text()
    expect(res.statusCode).toBe(200)
  })
})
