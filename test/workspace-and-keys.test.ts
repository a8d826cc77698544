import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { storeKinds } from './support/stores.js'

describe.each(storeKinds())('workspaces and API keys on %s', (store) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness(store)
  })
  afterAll(async () => h?.close())

  it('accepts the key as Bearer, lowercase bearer, and bare (the SDK sends it verbatim)', async () => {
    for (const authorization of [`Bearer ${h.apiKey}`, `bearer ${h.apiKey}`, h.apiKey]) {
      const res = await h.api('GET', '/unified/workspace', { headers: { authorization } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ id: h.workspaceId, slow_fields_opt_in: false })
    }
  })

  it('answers 401 JSON for a missing, malformed or forged key', async () => {
    const forged = `${h.apiKey.slice(0, -4)}AAAA`
    for (const key of [null, 'nonsense', forged]) {
      const res = await h.api('GET', '/unified/workspace', { key })
      expect(res.status).toBe(401)
      expect(res.headers['content-type']).toMatch(/application\/json/)
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' })
    }
  })

  it('stops accepting a revoked key', async () => {
    const { apiKey, keyId } = await h.services.apiKeys.issue(h.workspaceId)
    expect((await h.api('GET', '/unified/workspace', { key: apiKey })).status).toBe(200)
    await h.services.apiKeys.revoke(keyId)
    const res = await h.api('GET', '/unified/workspace', { key: apiKey })
    expect(res.status).toBe(401)
    expect(res.body).toMatchObject({ message: 'invalid or revoked API key' })
  })

  it('picks up a revocation made by another process (a second ApiKeys on the same database)', async () => {
    const { ApiKeys } = await import('../src/workspaces/index.js')
    const { apiKey, keyId } = await h.services.apiKeys.issue(h.workspaceId)
    const otherProcess = new ApiKeys(h.services.db, h.services.config.masterKey)
    await otherProcess.revoke(keyId)
    await h.services.apiKeys.refreshRevocations()
    expect((await h.api('GET', '/unified/workspace', { key: apiKey })).status).toBe(401)
  })

  it('reads and changes slow_fields_opt_in through the API', async () => {
    const patched = await h.api('PATCH', '/unified/workspace', { body: { slow_fields_opt_in: true } })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ slow_fields_opt_in: true })
    expect((await h.api('GET', '/unified/workspace')).body).toMatchObject({ slow_fields_opt_in: true })
    await h.api('PATCH', '/unified/workspace', { body: { slow_fields_opt_in: false } })
  })

  it('refuses a wrongly typed or unknown workspace setting, naming it', async () => {
    const wrongType = await h.api('PATCH', '/unified/workspace', { body: { slow_fields_opt_in: 'yes' } })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body).toMatchObject({ message: expect.stringContaining('slow_fields_opt_in') })
    const unknown = await h.api('PATCH', '/unified/workspace', { body: { colour: 'red' } })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({ message: expect.stringContaining("'colour'") })
  })

  it('keeps the workspace secret sealed at rest', async () => {
    const row = await h.services.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', h.workspaceId)
      .executeTakeFirstOrThrow()
    expect(row.secret_sealed).not.toContain(h.secret)
    expect(await h.services.workspaces.secretOf(h.workspaceId)).toBe(h.secret)
  })
})
