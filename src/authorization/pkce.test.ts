import { describe, expect, it } from 'vitest'
import { newPkcePair, pkceChallenge } from './pkce.js'

describe('PKCE', () => {
  it('derives the S256 challenge of RFC 7636 appendix B', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
  })

  it('makes a fresh 43-character verifier each time', () => {
    const a = newPkcePair()
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(a.challenge).toBe(pkceChallenge(a.verifier))
    expect(newPkcePair().verifier).not.toBe(a.verifier)
  })
})
