import { createHmac, timingSafeEqual } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { redirectSigningInput, signRedirect, verifyRedirectSig } from './sig.js'

const secret = 'workspace-secret'
const redirect = { id: 'cn_na_abc', state: 'user-42', nonce: '00ff', type: 'posthog' }

describe('redirect signature', () => {
  it('is hex HMAC-SHA256 of id, nonce, type and state joined by newlines, state last', () => {
    expect(redirectSigningInput(redirect)).toBe('cn_na_abc\n00ff\nposthog\nuser-42')
    const expected = createHmac('sha256', secret).update('cn_na_abc\n00ff\nposthog\nuser-42').digest('hex')
    expect(signRedirect(secret, redirect)).toBe(expected)
  })

  it('verifies an untouched redirect', () => {
    expect(verifyRedirectSig(secret, redirect, signRedirect(secret, redirect))).toBe(true)
  })

  it('fails when any signed field, the secret or the sig itself changes', () => {
    const sig = signRedirect(secret, redirect)
    for (const tampered of [
      { ...redirect, id: 'cn_na_other' },
      { ...redirect, state: 'user-43' },
      { ...redirect, nonce: '00fe' },
      { ...redirect, type: 'ga4' },
    ]) {
      expect(verifyRedirectSig(secret, tampered, sig)).toBe(false)
    }
    expect(verifyRedirectSig('another-secret', redirect, sig)).toBe(false)
    expect(verifyRedirectSig(secret, redirect, `${sig.slice(0, -1)}0`)).toBe(sig.endsWith('0'))
    expect(verifyRedirectSig(secret, redirect, 'not-hex')).toBe(false)
  })
})

/** The verification example of README.md ("Authorizing end users"), verbatim. */
function verifyUnigateRedirect(url: URL, workspaceSecret: string): string | undefined {
  const get = (name: string) => url.searchParams.get(name) ?? ''
  const id = get('id')
  const message = `${id}\n${get('nonce')}\n${get('type')}\n${get('state')}`
  const expected = createHmac('sha256', workspaceSecret).update(message).digest()
  const given = Buffer.from(get('sig'), 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined
}

describe("the README's verification example", () => {
  it('accepts a redirect Unigate signed and refuses a tampered one', () => {
    const url = new URL('https://app.example.com/connected')
    for (const [k, v] of Object.entries({ ...redirect, sig: signRedirect(secret, redirect) }))
      url.searchParams.set(k, v)
    expect(verifyUnigateRedirect(url, secret)).toBe('cn_na_abc')
    url.searchParams.set('id', 'cn_na_evil')
    expect(verifyUnigateRedirect(url, secret)).toBeUndefined()
  })
})
