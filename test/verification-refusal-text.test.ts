import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { type LocalServer, startLocalServer } from './support/local-server.js'

/**
 * A connection's `api_url` is the caller's choice (within the outbound allow list), so what that address answers
 * a failed verification must not come back as Unigate's words: only the status and a short stated message, cleaned.
 */
describe('a failed verification repeats no more of the address’s answer than a short stated message', () => {
  let h: Harness
  let server: LocalServer
  let answer: { status: number; type: string; body: string } = { status: 401, type: 'text/plain', body: '' }
  beforeAll(async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': answer.type })
      res.end(answer.body)
    })
    h = await startHarness('sqlite')
  })
  afterAll(async () => {
    await h?.close()
    await server?.close()
  })

  const connect = () =>
    h.api<{ message: string }>('POST', '/unified/connection', {
      body: { integration_type: 'posthog', auth: { token: 'phx_unverified', api_url: server.url } },
    })

  it('keeps the status and leaves out a body that states no message (a page, a JSON document)', async () => {
    for (const [type, body] of [
      ['text/html', '<html><body><h1>Internal admin</h1><p>db=10.0.0.5 user=root</p></body></html>'],
      ['application/json', '{"internal":{"host":"10.0.0.5","note":"whatever the address says"}}'],
    ]) {
      answer = { status: 401, type: type as string, body: body as string }
      const res = await connect()
      expect(res.status, body).toBe(400)
      expect(res.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: 'PostHog rejected the credentials (401)',
      })
    }
    answer = { status: 500, type: 'text/html', body: '<h1>stack trace at 10.0.0.5</h1>' }
    const failed = await connect()
    expect(failed.status).toBe(502)
    expect(failed.body.message).toBe('PostHog could not verify the credentials (500)')
  })

  it('repeats a stated message with its control characters made spaces, and at most 200 characters', async () => {
    answer = {
      status: 403,
      type: 'application/json',
      body: JSON.stringify({ detail: 'Invalid\r\ntoken\u001b[31m here\u202e.' }),
    }
    const cleaned = await connect()
    expect(cleaned.status).toBe(400)
    expect(cleaned.body.message).toBe('PostHog rejected the credentials (403: Invalid token [31m here .)')
    answer = { status: 401, type: 'application/json', body: JSON.stringify({ message: 'x'.repeat(300) }) }
    const long = await connect()
    expect(long.body.message).toBe(`PostHog rejected the credentials (401: ${'x'.repeat(199)}…)`)
  })
})
