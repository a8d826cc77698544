import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SecretBox } from './keys.js'

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32))
  it('round-trips any text and never contains the plaintext', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4 }), (text) => {
        const sealed = box.seal(text)
        expect(box.open(sealed)).toBe(text)
        expect(sealed.includes(text)).toBe(false)
      }),
    )
  })
  it('refuses a tampered value and another master key', () => {
    const sealed = box.seal('phx_secret')
    const parts = sealed.split('.')
    parts[3] = Buffer.from('phx_secreT').toString('base64url')
    expect(() => box.open(parts.join('.'))).toThrow()
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow()
  })
})
