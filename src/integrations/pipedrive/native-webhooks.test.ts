import { describe, expect, it } from 'vitest'
import { ProviderError } from '../../errors.js'
import type { HandlerContext } from '../types.js'
import { pipedrivePersonPushes } from './native-webhooks.js'

/** A context whose client answers `GET /api/v1/webhooks` with `answer` (or throws it), recording the paths. */
function listing(answer: unknown) {
  const paths: string[] = []
  const ctx = {
    client: {
      json: async (request: { method?: string; path: string }) => {
        paths.push(`${request.method ?? 'GET'} ${request.path}`)
        if (answer instanceof Error) throw answer
        return answer
      },
    },
  } as unknown as HandlerContext
  return { ctx, paths }
}

const hook = (fields: Record<string, unknown>) => ({
  id: 7,
  is_active: 1,
  remove_time: null,
  subscription_url: 'https://unigate.example/native-webhooks/wh_1',
  ...fields,
})

describe('pipedrivePersonPushes.subscriptionState', () => {
  const state = (answer: unknown) => {
    const { ctx, paths } = listing(answer)
    return { result: pipedrivePersonPushes.subscriptionState!(ctx, '7'), paths }
  }

  it('is present while GET /api/v1/webhooks lists it, banned (is_active 0) or not', async () => {
    const listed = state({ success: true, data: [hook({ id: 6 }), hook({})] })
    await expect(listed.result).resolves.toBe('present')
    expect(listed.paths).toEqual(['GET /api/v1/webhooks'])
    await expect(state({ success: true, data: [hook({ is_active: 0 })] }).result).resolves.toBe('present')
  })

  it('is gone when not listed, listed with a remove_time, or the list is empty', async () => {
    await expect(state({ success: true, data: [hook({ id: 8 })] }).result).resolves.toBe('gone')
    await expect(
      state({ success: true, data: [hook({ is_active: 0, remove_time: '2026-03-04T10:00:00.000Z' })] })
        .result,
    ).resolves.toBe('gone')
    await expect(state({ success: true, data: null }).result).resolves.toBe('gone')
  })

  it('is never gone when Pipedrive cannot answer: the error is passed on', async () => {
    await expect(state(new ProviderError(503, 'Service Unavailable')).result).rejects.toThrow('503')
    await expect(state(new ProviderError(429, 'Too Many Requests')).result).rejects.toThrow('429')
  })
})
