import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_DISTINCT_KEYS_PER_ANSWER, MAX_VALUES_PER_ANSWER } from '../src/integrations/http-client.js'
import { type Harness, startHarness } from './support/harness.js'

/**
 * A connection's creator may point it at an address of their own (Fathom's `api_url` here). JSON.parse
 * takes its time per value, and an answer under the body cap made of empty objects held the event loop for
 * 7.5 s (a security review, reproduced): such an answer is refused before it is parsed.
 */
describe('a provider answer of more values than Unigate parses at once', () => {
  let h: Harness
  let providerUrl: string
  const answers: Record<string, Buffer> = {
    // 30 MB of `{},`, under the default body cap (32 MiB): 10 million values.
    '/dense': Buffer.from(`{"sites":[${'{},'.repeat(10_000_000)}{}]}`),
    // 6 MB of nested arrays: no comma, but 3 million values (32 MB of them held every request for 5.5 s).
    '/deep': Buffer.from(`{"sites":${'['.repeat(3_000_000)}${']'.repeat(3_000_000)}}`),
    // 600,000 keys all different (9 MB), under the value bound: JSON.parse reads each new key as a new string
    // and shape (990,000 of them held the event loop 1.1 to 1.3 s).
    '/keyed': Buffer.from(
      `{"object":"list","data":[{"id":"a","name":"x","extra":{${Array.from({ length: 600_000 }, (_, i) => `"k${i}":0`).join(',')}}}],"has_more":false}`,
    ),
    // As many keys, repeated row after row (a Mixpanel series keyed by hour, 7 MB): read.
    '/rows': Buffer.from(
      JSON.stringify({
        object: 'list',
        data: [
          {
            id: 'a',
            name: 'x',
            extra: Array.from({ length: 400 }, () =>
              Object.fromEntries(Array.from({ length: 1500 }, (_, h) => [`2026-01-01 ${h}:00:00`, h])),
            ),
          },
        ],
        has_more: false,
      }),
    ),
    // A site whose own data nests 20,000 levels (40 KB): JSON.parse reads it, JSON.stringify overflows.
    '/nested': Buffer.from(
      `{"object":"list","data":[{"id":"a","name":"x","extra":${'['.repeat(20_000)}${']'.repeat(20_000)}}],"has_more":false}`,
    ),
    // A site answered as an object of another shape: nothing of a site in it.
    '/shapeless': Buffer.from(JSON.stringify({ result: 'ok', items: [] })),
    // 4 MiB of text in a few values: read as before.
    '/wide': Buffer.from(
      JSON.stringify({
        object: 'list',
        data: [{ id: 'a', name: 'x'.repeat(4 * 1024 * 1024) }],
        has_more: false,
      }),
    ),
  }
  let next = '/wide'
  const provider = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    if (req.url?.endsWith('/token')) res.end(JSON.stringify({ name: 'x', abilities: ['*'] }))
    else res.end(answers[next])
  })

  beforeAll(async () => {
    h = await startHarness('sqlite')
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
    providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await h?.close()
    await new Promise((resolve) => provider.close(resolve))
  })

  it('is a 502 naming the bound, values or different keys, and an answer as long in few values is read', async () => {
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'fathom',
        auth: { api_key: 'a-valid-token-1', meta: { api_url: providerUrl } },
      },
    })
    expect(conn.status, conn.text).toBe(200)
    next = '/dense'
    const dense = await h.api<{ message: string }>('GET', `/analytics/${conn.body.id}/property`)
    expect(dense.status).toBe(502)
    expect(dense.body.message).toContain(
      `the provider answered more than ${MAX_VALUES_PER_ANSWER} values at once, more than Unigate parses of one answer`,
    )
    next = '/deep'
    const deep = await h.api<{ message: string }>('GET', `/analytics/${conn.body.id}/property`)
    expect(deep.status).toBe(502)
    expect(deep.body.message).toContain(
      `the provider answered more than ${MAX_VALUES_PER_ANSWER} values at once, more than Unigate parses of one answer`,
    )
    next = '/keyed'
    const keyed = await h.api<{ message: string }>('GET', `/analytics/${conn.body.id}/property`)
    expect(keyed.status).toBe(502)
    expect(keyed.body.message).toContain(
      `the provider answered more than ${MAX_DISTINCT_KEYS_PER_ANSWER} different object keys at once`,
    )
    next = '/rows'
    const rows = await h.api<unknown[]>('GET', `/analytics/${conn.body.id}/property`, {
      query: { fields: 'id' },
    })
    expect(rows.status, JSON.stringify(rows.body).slice(0, 300)).toBe(200)
    next = '/wide'
    const wide = await h.api<unknown[]>('GET', `/analytics/${conn.body.id}/property`)
    expect(wide.status, JSON.stringify(wide.body).slice(0, 300)).toBe(200)
  })

  it('is a 502 naming the nesting when data nested too deep to write out is asked for, not a 500', async () => {
    next = '/wide'
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'fathom',
        auth: { api_key: 'a-valid-token-2', meta: { api_url: providerUrl } },
      },
    })
    expect(conn.status, conn.text).toBe(200)
    next = '/nested'
    const tooDeep =
      'the provider answered data nested deeper than Unigate can write out (thousands of levels); not passed on'
    const raw = await h.api<{ message: string }>('GET', `/analytics/${conn.body.id}/property`, {
      query: { fields: 'id,raw' },
    })
    expect(raw.status).toBe(502)
    expect(raw.body).toEqual({ statusCode: 502, error: 'Bad Gateway', message: tooDeep })
    // The same call as a tool: a tool error with the same answer, and with hide_sensitive (which walks it).
    for (const hide of ['false', 'true']) {
      const tool = await h.api<{ message: string }>('POST', '/tools/list_analytics_properties/call', {
        query: { connection: conn.body.id, hide_sensitive: hide },
        body: { fields: 'id,raw' },
      })
      expect(tool.status, tool.text).toBe(502)
      expect(tool.body.message).toBe(tooDeep)
    }
    // Without raw, the fields asked for are written as ever.
    const named = await h.api<{ id: string }[]>('GET', `/analytics/${conn.body.id}/property`, {
      query: { fields: 'id,name' },
    })
    expect(named.status, named.text).toBe(200)
    expect(named.body).toEqual([{ id: 'a', name: 'x' }])
    // A virtual webhook over the same data: its check (which fingerprints each record) fails naming the
    // nesting, as the API answers, not with the stack overflow's own words.
    const hook = await h.api<{ id: string }>('POST', '/unified/webhook', {
      body: {
        connection_id: conn.body.id,
        hook_url: 'https://receiver.example/hook',
        object_type: 'analytics_property',
        event: 'updated',
        interval: 100_000,
        webhook_type: 'virtual',
        fields: 'id,raw',
      },
    })
    expect(hook.status, hook.text).toBe(200)
    const outcomes = async () =>
      (
        await h.services.db
          .selectFrom('webhook_runs')
          .select('outcome')
          .where('webhook_id', '=', hook.body.id)
          .execute()
      ).map((r) => r.outcome)
    for (let i = 0; i < 400 && (await outcomes()).length === 0; i++)
      await new Promise((r) => setTimeout(r, 25))
    expect(await outcomes()).toEqual([`error: ${tooDeep}`])
  })

  it('is a 502 when a get is answered with an object that holds no record, not a 200 with {}', async () => {
    const conn = await h.api<{ id: string }>('POST', '/unified/connection', {
      body: {
        integration_type: 'fathom',
        auth: { api_key: 'a-valid-token-3', meta: { api_url: providerUrl } },
      },
    })
    expect(conn.status, conn.text).toBe(200)
    next = '/shapeless'
    const got = await h.api<{ message: string }>('GET', `/analytics/${conn.body.id}/property/a`)
    expect(got.status, got.text).toBe(502)
    expect(got.body.message).toBe(
      'Fathom (fathom) answered get analytics_property a with a response of an unexpected shape, which ' +
        'Unigate could not read; the server log has the details',
    )
  })
})
