import { request as httpRequest } from 'node:http'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_PERSONAL_API_KEY,
  DEFAULT_PROJECT_API_KEY,
  type PosthogEmulator,
} from '../emulators/posthog/index.js'
import { exportedImage } from '../emulators/posthog/routes/exports.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, startPosthog } from './support/posthog.js'

describe('passthrough to the provider', () => {
  let h: Harness
  let emulator: PosthogEmulator
  let conn: string
  beforeAll(async () => {
    emulator = await startPosthog()
    h = await startHarness('sqlite')
    conn = await connectPosthog(h, emulator)
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })
  beforeEach(() => {
    emulator.clearRequests()
    emulator.clearFaults()
  })

  it('forwards GET with the path as one encoded segment (the SDK) or literal slashes (curl)', async () => {
    const encoded = await h.api<{ email: string }>(
      'GET',
      `/passthrough/${conn}/${encodeURIComponent('/api/users/@me/')}`,
    )
    const literal = await h.api<{ email: string }>('GET', `/passthrough/${conn}/api/users/@me/`)
    expect(encoded.status).toBe(200)
    expect(literal.body).toEqual(encoded.body)
    expect(encoded.body.email).toEqual(expect.any(String))
    for (const r of emulator.requests()) {
      expect(r.path).toBe('/api/users/@me/')
      expect(r.headers.authorization).toBe(`Bearer ${DEFAULT_PERSONAL_API_KEY}`)
    }
  })

  it('forwards the query, including one inside the encoded segment', async () => {
    const res = await h.api<{ results: unknown[] }>(
      'GET',
      `/passthrough/${conn}/${encodeURIComponent('api/projects/1/persons/?limit=2')}`,
      {
        query: { offset: 1 },
      },
    )
    expect(res.status).toBe(200)
    expect(res.body.results).toHaveLength(2)
    expect(emulator.requests()[0]?.query).toEqual({ limit: '2', offset: '1' })
  })

  it("never forwards the caller's authorization or cookie, and adds the provider's own", async () => {
    await h.api('GET', `/passthrough/${conn}/api/users/@me/`, {
      headers: { cookie: 'session=abc', 'x-custom': 'kept' },
    })
    const [r] = emulator.requests()
    expect(r?.headers.authorization).toBe(`Bearer ${DEFAULT_PERSONAL_API_KEY}`)
    expect(r?.headers.cookie).toBeUndefined()
    expect(r?.headers['x-custom']).toBe('kept')
    expect(JSON.stringify(r?.headers)).not.toContain(h.apiKey)
  })

  it('answers a call sent with expect: 100-continue, without passing the expectation on', async () => {
    // Node's own client: undici's refuses to send the header at all.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(`${h.url}/passthrough/${conn}/api/users/@me/`, {
        headers: { authorization: `Bearer ${h.apiKey}`, expect: '100-continue' },
      })
      req.on('response', (res) => {
        res.resume()
        resolve(res.statusCode)
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(200)
    const [r] = emulator.requests()
    expect(r?.headers.expect).toBeUndefined()
  })

  it('forwards a JSON body with its method and relays the provider status and body unchanged', async () => {
    const body = {
      api_key: DEFAULT_PROJECT_API_KEY,
      event: 'passthrough_test',
      distinct_id: 'pt-1',
      properties: { a: 1 },
    }
    const res = await h.api('POST', `/passthrough/${conn}/i/v0/e/`, { body })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: 'Ok' })
    expect(emulator.requests()[0]?.body).toEqual(body)
    const missing = await h.api('GET', `/passthrough/${conn}/api/projects/999999/`)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: 'Not found.',
      attr: null,
    })
  })

  it('forwards a binary request body byte for byte (a gzipped capture batch)', async () => {
    const batch = {
      api_key: DEFAULT_PROJECT_API_KEY,
      batch: [{ event: 'gz_event', distinct_id: 'gz-1', properties: {} }],
    }
    const gz = gzipSync(JSON.stringify(batch))
    const res = await request(`${h.url}/passthrough/${conn}/batch/?compression=gzip-js`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': 'text/plain' },
      body: gz,
    })
    expect(res.statusCode).toBe(200)
    expect(await res.body.json()).toEqual({ status: 'Ok' })
    expect(emulator.requests()[0]?.body).toEqual(batch)
  })

  it('streams a binary response back intact with its headers', async () => {
    const res = await request(`${h.url}/passthrough/${conn}/api/projects/1/exports/1/content/`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/png')
    expect(res.headers['content-disposition']).toContain('export-1-1.png')
    expect(res.headers.connection).not.toBe('close')
    const bytes = Buffer.from(await res.body.arrayBuffer())
    expect(bytes.equals(exportedImage(1))).toBe(true)
  })

  it('needs a read grant for reading methods and a write grant for the others (403 otherwise)', async () => {
    const readOnly = await connectPosthog(h, emulator, { permissions: ['analytics_event_read'] })
    const writeOnly = await connectPosthog(h, emulator, { permissions: ['analytics_event_write'] })
    emulator.clearRequests()
    const capture = {
      api_key: DEFAULT_PROJECT_API_KEY,
      event: 'grant_test',
      distinct_id: 'g-1',
      properties: {},
    }
    const refusedWrite = await h.api<{ message: string }>('POST', `/passthrough/${readOnly}/i/v0/e/`, {
      body: capture,
    })
    expect(refusedWrite.status).toBe(403)
    expect(refusedWrite.body.message).toMatch(/passthrough POST needs a write permission \(any \*_write/)
    const refusedRead = await h.api<{ message: string }>('GET', `/passthrough/${writeOnly}/api/users/@me/`)
    expect(refusedRead.status).toBe(403)
    expect(refusedRead.body.message).toMatch(/passthrough GET needs a read permission \(any \*_read/)
    expect(emulator.requests()).toEqual([])

    expect((await h.api('GET', `/passthrough/${readOnly}/api/users/@me/`)).status).toBe(200)
    expect((await h.api('POST', `/passthrough/${writeOnly}/i/v0/e/`, { body: capture })).status).toBe(200)
    expect(emulator.requests().map((r) => r.method)).toEqual(['GET', 'POST'])
  })

  it('refuses a method-override header, which would let a read grant send a write in disguise', async () => {
    const readOnly = await connectPosthog(h, emulator, { permissions: ['analytics_event_read'] })
    emulator.clearRequests()
    for (const name of ['X-HTTP-Method-Override', 'X-HTTP-Method', 'X-Method-Override']) {
      const res = await h.api<{ message: string }>('GET', `/passthrough/${readOnly}/api/users/@me/`, {
        headers: { [name]: 'DELETE' },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe(
        `${name.toLowerCase()}: not passed on; send the method itself (GET was sent)`,
      )
    }
    expect(emulator.requests()).toEqual([])
  })

  it('answers 504 when the provider hangs, and 404 for an unknown connection', async () => {
    emulator.fault({ delayMs: 8_000 })
    const slow = await h.api('GET', `/passthrough/${conn}/api/users/@me/`)
    expect(slow.status).toBe(504)
    expect((await h.api('GET', '/passthrough/cn_na_nope/api/users/@me/')).status).toBe(404)
  })
})
