import { describe, expect, it } from 'vitest'
import { toCallToolResult } from './results.js'

describe('tool results', () => {
  it('adds structuredContent from protocol 2025-06-18 on, and only then', () => {
    const ok = { ok: true as const, value: { id: 'e1' }, text: '{"id":"e1"}' }
    expect(toCallToolResult(ok, '2025-03-26')).toEqual({ content: [{ type: 'text', text: '{"id":"e1"}' }] })
    expect(toCallToolResult(ok, undefined)).not.toHaveProperty('structuredContent')
    expect(toCallToolResult(ok, '2025-06-18').structuredContent).toEqual({ id: 'e1' })
    expect(toCallToolResult(ok, '2025-11-25').structuredContent).toEqual({ id: 'e1' })
  })

  it('wraps a list in an object, as structuredContent must be one', () => {
    expect(
      toCallToolResult({ ok: true, value: [{ id: 1 }], text: '[{"id":1}]' }, '2025-06-18').structuredContent,
    ).toEqual({
      data: [{ id: 1 }],
    })
  })

  it('turns an API error into a tool error with the API’s message', () => {
    const result = toCallToolResult(
      { ok: false, status: 404, message: 'connection x not found', extra: {} },
      '2025-06-18',
    )
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([{ type: 'text', text: 'connection x not found' }])
    expect(result.structuredContent).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'connection x not found',
    })
  })
})
