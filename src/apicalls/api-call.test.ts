import { describe, expect, it } from 'vitest'
import { clipApiCallText, MAX_API_CALL_TEXT } from './api-call.js'

describe('clipApiCallText', () => {
  it('keeps text up to the bound, and cuts longer text to it', () => {
    expect(clipApiCallText('short')).toBe('short')
    expect(clipApiCallText('x'.repeat(MAX_API_CALL_TEXT + 10))).toBe('x'.repeat(MAX_API_CALL_TEXT))
  })

  it('never cuts between the halves of a surrogate pair, which would store a lone surrogate', () => {
    // An emoji (two UTF-16 units) straddling the bound.
    const text = `${'x'.repeat(MAX_API_CALL_TEXT - 1)}😀tail`
    const clipped = clipApiCallText(text)
    expect(clipped).toBe('x'.repeat(MAX_API_CALL_TEXT - 1))
  })
})
