import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PosthogEmulator } from '../emulators/posthog/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, startPosthog } from './support/posthog.js'

/**
 * An item route with an empty id (`…/visitor/`, a trailing slash) names no record. An outside probe found it
 * sent on: a DELETE reached PostHog's person lookup with an empty distinct_id and removed the first person it
 * answered, a PATCH renamed that person.
 */
describe('an empty id on an item route', () => {
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

  it.each([
    ['GET', undefined],
    ['PUT', { name: 'renamed' }],
    ['PATCH', { name: 'renamed' }],
    ['DELETE', undefined],
  ] as const)('is a 400 naming id on %s, and nothing reaches the provider', async (method, body) => {
    const before = emulator.requests().length
    const res = await h.api<{ message: string }>(method, `/analytics/${conn}/visitor/`, {
      ...(body ? { body } : {}),
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/\bid\b/)
    expect(emulator.requests().slice(before)).toEqual([])
  })
})
