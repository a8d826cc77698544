import { describe, expect, it } from 'vitest'
import { normalizeOrigin } from '../workspaces/index.js'
import { checkRedirectTarget, RedirectRefused, withParams } from './redirects.js'

const allowed = ['https://app.example.com', 'http://localhost:3000']

describe('redirect targets', () => {
  it('accepts URLs on an allowed origin, whatever the path and query', () => {
    expect(
      checkRedirectTarget('success_redirect', 'https://app.example.com/done?x=1', allowed).pathname,
    ).toBe('/done')
    expect(checkRedirectTarget('success_redirect', 'http://localhost:3000/', allowed).origin).toBe(
      'http://localhost:3000',
    )
  })

  it.each([
    'https://evil.example.net/',
    'https://app.example.com.evil.net/',
    'https://app.example.com:8443/',
    'http://app.example.com/',
    'https://user:pw@app.example.com/',
    'javascript:alert(1)',
    '//evil.example.net/',
    '/relative',
  ])('refuses %s', (target) => {
    expect(() => checkRedirectTarget('success_redirect', target, allowed)).toThrow(RedirectRefused)
  })

  it('names the fix, and not the origins the workspace allows (whoever holds the link reads it)', () => {
    for (const origins of [[], allowed]) {
      expect(() => checkRedirectTarget('failure_redirect', 'https://a.example/', origins)).toThrow(
        /origin https:\/\/a\.example is not an allowed redirect origin of this workspace.*allowed_redirect_origins/,
      )
    }
    expect(() => checkRedirectTarget('failure_redirect', 'https://a.example/', allowed)).not.toThrow(
      /app\.example\.com|localhost/,
    )
  })

  it('appends parameters and keeps the ones already there', () => {
    const url = new URL(withParams('https://app.example.com/cb?tab=2', { id: 'cn_1', state: 'a b&c' }))
    expect(url.searchParams.get('tab')).toBe('2')
    expect(url.searchParams.get('id')).toBe('cn_1')
    expect(url.searchParams.get('state')).toBe('a b&c')
  })
})

describe('allowed origin entries', () => {
  it('normalizes case and default ports', () => {
    expect(normalizeOrigin('HTTPS://App.Example.com:443')).toBe('https://app.example.com')
    expect(normalizeOrigin('http://localhost:3000/')).toBe('http://localhost:3000')
  })

  it.each([
    'https://app.example.com/path',
    'ftp://x.example',
    'https://a.example?x=1',
    'nonsense',
    'https://u:p@a.example',
  ])('refuses %s', (entry) => {
    expect(() => normalizeOrigin(entry)).toThrow()
  })
})
