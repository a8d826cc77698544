import { describe, expect, it } from 'vitest'
import type { PosthogEmulator } from '../emulators/posthog/index.js'
import { MAX_BODY_DEPTH } from '../src/http/body-depth.js'
import type { Harness } from './support/harness.js'
import { useEmulatorSuite } from './support/integration-suite.js'
import { connectPosthog, startPosthog } from './support/posthog.js'

type ErrorBody = { statusCode: number; error: string; message: string }

/**
 * An event body whose metadata value `plan` is `levels` objects inside one another, as JSON text (the test's
 * own JSON.stringify would overflow on the deepest). The body and `metadata` take two more levels.
 */
function eventNested(name: string, levels: number): string {
  return `{"name":"${name}","metadata":{"plan":${'{"a":'.repeat(levels)}"deep"${'}'.repeat(levels)}}}`
}

/**
 * A body nested 100,000 levels deep overflowed JSON.stringify's stack on its way to PostHog: the caller got
 * a 502 blaming PostHog for an unexpected shape. Bodies past MAX_BODY_DEPTH are the caller's 400 now,
 * naming the field, before any provider call.
 */
describe('request bodies nested too deep', () => {
  let h: Harness
  let emu: PosthogEmulator
  let conn: string

  useEmulatorSuite({
    start: () => startPosthog(),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await connectPosthog(h, emu)
    },
  })

  const expectRefused = (res: { status: number; body: unknown }) => {
    expect(res.status).toBe(400)
    expect(res.body as ErrorBody).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: `metadata: nested more than ${MAX_BODY_DEPTH} levels deep; request bodies may nest up to ${MAX_BODY_DEPTH}`,
    })
  }

  it('answers 400 naming the field on the API and on the tool server, and sends nothing', async () => {
    emu.clearRequests()
    const body = eventNested('Deep', 100_000)
    expectRefused(await h.api('POST', `/analytics/${conn}/event`, { body }))
    // One level past the bound.
    expectRefused(
      await h.api('POST', `/analytics/${conn}/event`, { body: eventNested('Deep', MAX_BODY_DEPTH - 1) }),
    )
    expectRefused(
      await h.api('POST', '/tools/create_analytics_event/call', { query: { connection: conn }, body }),
    )
    expect(emu.requests()).toEqual([])
  })

  it('refuses the same in an object argument a tool takes as JSON text (as Gemini sends it), and sends nothing', async () => {
    emu.clearRequests()
    const call = (raw: string) =>
      h.api<ErrorBody>('POST', '/tools/create_analytics_event/call', {
        query: { connection: conn },
        body: { name: 'Deep', raw },
      })
    const deep = await call(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`)
    expect(deep.status).toBe(400)
    expect(deep.body.message).toBe(
      `raw: nested more than ${MAX_BODY_DEPTH} levels deep; request bodies may nest up to ${MAX_BODY_DEPTH}`,
    )
    const proto = await call('{"__proto__":{"isAdmin":true}}')
    expect(proto.status).toBe(400)
    expect(proto.body.message).toMatch(/^raw: holds a key named __proto__/)
    const surrogate = await call('{"a":"\\ud800"}')
    expect(surrogate.status).toBe(400)
    expect(surrogate.body.message).toMatch(/^raw: holds a lone UTF-16 surrogate/)
    expect(emu.requests()).toEqual([])
    // A well-formed one is taken as before.
    const fine = await call('{"plan":{"tier":"pro"}}')
    expect(fine.status, JSON.stringify(fine.body)).toBe(200)
  })

  it('still refuses, before any provider call, the keys Fastify refuses by default', async () => {
    // `metadata` is a free map of objects: only the parser stands between these keys and the provider.
    emu.clearRequests()
    for (const [key, says] of [
      [
        '"__proto__":{"polluted":1}',
        "holds a key named __proto__, which request bodies may not have: it would set an object's prototype",
      ],
      [
        '"constructor":{"prototype":{"polluted":1}}',
        "holds a constructor object with a prototype key, which request bodies may not have: it would reach an object's prototype",
      ],
    ]) {
      const body = `{"name":"x","metadata":{${key}}}`
      // The API and the tool server (which parsed with plain JSON.parse before) alike.
      for (const res of [
        await h.api<ErrorBody>('POST', `/analytics/${conn}/event`, { body }),
        await h.api<ErrorBody>('POST', '/tools/create_analytics_event/call', {
          query: { connection: conn },
          body,
        }),
      ]) {
        expect(res.status, key).toBe(400)
        // The key named, not the JSON called invalid (Fastify's parser refuses both alike).
        expect(res.body, key).toEqual({ statusCode: 400, error: 'Bad Request', message: `metadata: ${says}` })
      }
    }
    expect(emu.requests()).toEqual([])
  })

  it('takes an empty JSON body on the tool server as a call without arguments', async () => {
    const res = await h.api<unknown[]>('POST', '/tools/list_unified_connections/call', {
      body: '',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status, res.text).toBe(200)
  })

  it('takes a body as deep as allowed', async () => {
    const res = await h.api<{ name: string }>('POST', `/analytics/${conn}/event`, {
      body: eventNested('Deep enough', MAX_BODY_DEPTH - 2),
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.name).toBe('Deep enough')
  })
})
