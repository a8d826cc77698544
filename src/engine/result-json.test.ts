import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.js'
import { modelOf } from '../models/index.js'
import { parseFields, planFields, projectRecord } from './fields.js'
import { resultJson, withinNesting } from './result-json.js'

const TOO_DEEP =
  'the provider answered data nested deeper than Unigate can write out (thousands of levels); not passed on'
/** Provider data as JSON.parse reads it: 20,000 levels, more than any recursive walk gets through. */
const deep = (): unknown => JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`)

describe('data nested too deep to write out', () => {
  it('is a 502 naming it where the result is written', () => {
    expect(() => resultJson({ raw: deep() })).toThrow(new ApiError(502, TOO_DEEP))
    expect(resultJson({ raw: [[1]] })).toBe('{"raw":[[1]]}')
  })

  it('is a 502 naming it when shaping a field overflows (metadata from provider properties), not a 500', async () => {
    const event = modelOf('analytics_event')!
    const s = parseFields('id,metadata', event)
    const shape = async () =>
      projectRecord(
        { id: 'e1', metadata: [{ id: 'k', value: deep() }] },
        event,
        s,
        planFields(s, [], false),
        [],
      )
    // Shaping alone overflows the stack: the route's answer was a 500.
    await expect(shape()).rejects.toBeInstanceOf(RangeError)
    const err = await withinNesting(shape).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err).toMatchObject({ statusCode: 502, message: TOO_DEEP })
    expect((err as Error).cause).toBeInstanceOf(RangeError)
    // Anything else passes through as it was.
    await expect(withinNesting(async () => 'ok')).resolves.toBe('ok')
    await expect(withinNesting(() => Promise.reject(new TypeError('x')))).rejects.toBeInstanceOf(TypeError)
  })
})
