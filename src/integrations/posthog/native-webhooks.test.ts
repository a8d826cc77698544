import { describe, expect, it } from 'vitest'
import { ApiError } from '../../errors.js'
import type { HandlerContext } from '../types.js'
import { posthogEventPushes } from './native-webhooks.js'

describe('PostHog event pushes', () => {
  it("answers a 400 naming the missing project before any call, for a connection that kept no project (not a 500, and no look-up for a subscription that can't exist)", async () => {
    const ctx = {
      settings: {},
      client: {
        json: () => {
          throw new Error('PostHog was called')
        },
      },
    } as unknown as HandlerContext
    const request = {
      event: 'created' as const,
      url: 'https://unigate.example/native-webhooks/wh_1',
      secret: 's',
      name: 'n',
    }
    const refused = await posthogEventPushes.subscribe(ctx, request).catch((err: unknown) => err)
    expect(refused).toBeInstanceOf(ApiError)
    expect((refused as ApiError).statusCode).toBe(400)
    expect((refused as ApiError).message).toContain('this PostHog connection has no default project')
  })
})
