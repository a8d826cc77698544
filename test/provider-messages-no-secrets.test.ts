import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AmplitudeEmulator,
  DEFAULT_API_KEY,
  DEFAULT_SECRET_KEY,
  startAmplitudeEmulator,
} from '../emulators/amplitude/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { createConnection } from './support/integration-suite.js'
import { storeKinds } from './support/stores.js'

/**
 * A provider's error message is passed on (it says what went wrong), and some quote the credential they
 * refused: Amplitude's HTTP V2 answers a key it does not know with `Invalid API key: <the key>`
 * (emulators/amplitude/routes.ts, after amplitude/amplitude-docs@6e7e48e http-v2.md). A connection whose key
 * was revoked at Amplitude then had its secret key in the answer, in the API-call log (stored as text) and in
 * tool results. The connection's secrets are cut out of every provider message.
 */
describe.each(storeKinds())('provider messages never carry the connection’s secrets, on %s', (store) => {
  let h: Harness
  let emu: AmplitudeEmulator
  let conn: string
  beforeAll(async () => {
    emu = await startAmplitudeEmulator({ seed: 9, users: 5, events: 20 })
    h = await startHarness(store)
    conn = await createConnection(h, {
      integration_type: 'amplitude',
      auth: { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, api_url: emu.url },
    })
  })
  afterAll(async () => {
    await h?.close()
    await emu?.close()
  })

  it('answers a refusal quoting the key with the message, the key cut out', async () => {
    // What Amplitude answers once the key was revoked there.
    emu.fault({
      status: 400,
      times: 1,
      pathPattern: '^/2/httpapi$',
      body: { code: 400, error: `Invalid API key: ${DEFAULT_API_KEY}` },
    })
    const created = await h.api<{ message: string }>('POST', `/analytics/${conn}/event`, {
      body: { name: 'Signed Up', visitor_id: 'user-1' },
    })
    expect(created.status).toBeGreaterThanOrEqual(400)
    expect(created.body.message).toContain('Invalid API key')
    expect(created.text).not.toContain(DEFAULT_API_KEY)
    const calls = await h.api('GET', '/unified/apicall', { query: { error: 'true' } })
    expect(calls.text).toContain('Invalid API key')
    expect(calls.text).not.toContain(DEFAULT_API_KEY)
    const rows = await h.services.db.selectFrom('api_calls').selectAll().execute()
    expect(JSON.stringify(rows)).not.toContain(DEFAULT_API_KEY)
    expect(h.logs()).not.toContain(DEFAULT_API_KEY)
  })

  it('cuts a long message to its length only once the key is cut out, so no start of it is left', async () => {
    // The message passed on is 500 characters; cut first, a key from character 480 on left its first 20.
    const start = DEFAULT_API_KEY.slice(0, 20)
    emu.fault({
      status: 400,
      times: 1,
      pathPattern: '^/2/httpapi$',
      body: {
        code: 400,
        error: `Invalid event ${'x'.repeat(480 - 'Invalid event '.length)}${DEFAULT_API_KEY}`,
      },
    })
    const created = await h.api<{ message: string }>('POST', `/analytics/${conn}/event`, {
      body: { name: 'Signed Up', visitor_id: 'user-1' },
    })
    expect(created.status).toBeGreaterThanOrEqual(400)
    expect(created.body.message).toContain('Invalid event xxx')
    expect(created.text).not.toContain(start)
    const calls = await h.api('GET', '/unified/apicall', { query: { error: 'true' } })
    expect(calls.text).not.toContain(start)
  })
})
