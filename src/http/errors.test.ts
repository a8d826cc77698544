import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.js'
import { errorAnswerOf } from './errors.js'

describe('errorAnswerOf', () => {
  const logged: string[] = []
  const log = () =>
    ({
      warn: (_obj: unknown, msg: string) => logged.push(`warn ${msg}`),
      error: (_obj: unknown, msg: string) => logged.push(`error ${msg}`),
    }) as never

  it('answers ours as they say, with their headers', () => {
    const answer = errorAnswerOf(new ApiError(429, 'slow down', { 'retry-after': '3' }), log)
    expect(answer).toEqual({
      status: 429,
      headers: { 'retry-after': '3' },
      body: { statusCode: 429, error: 'Too Many Requests', message: 'slow down' },
    })
  })

  it('answers anything else, even a thrown undefined, with a 500 whose details go to the log only', () => {
    logged.length = 0
    for (const thrown of [undefined, null, 'text', new Error('secret detail')]) {
      const answer = errorAnswerOf(thrown, log)
      expect(answer.status).toBe(500)
      expect(JSON.stringify(answer.body)).not.toContain('secret')
    }
    expect(logged).toEqual(Array(4).fill('error unhandled error'))
  })
})
