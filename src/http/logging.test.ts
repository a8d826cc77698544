import { describe, expect, it } from 'vitest'
import { redactPath } from './logging.js'

describe('redactPath', () => {
  it('drops every query string', () => {
    expect(redactPath('/unified/integration/oauth/callback?code=4/abc&state=xyz')).toBe(
      '/unified/integration/oauth/callback',
    )
    expect(redactPath('/analytics/cn_1/event?limit=5#frag')).toBe('/analytics/cn_1/event')
  })

  it('replaces the key page token, keeping what follows it', () => {
    const token = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde'
    expect(redactPath(`/unified/integration/key/${token}`)).toBe('/unified/integration/key/<redacted>')
    expect(redactPath(`/unified/integration/key/${token}/cancel`)).toBe(
      '/unified/integration/key/<redacted>/cancel',
    )
  })

  it('drops a provider query carried inside an encoded passthrough segment, even encoded twice', () => {
    expect(redactPath('/passthrough/cn/%2Findex.php%3Fmodule%3DAPI%26token_auth%3Dsecret')).toBe(
      '/passthrough/cn/%2Findex.php',
    )
    expect(redactPath('/passthrough/cn/%252Findex.php%253Ftoken_auth%253Dsecret')).toBe(
      '/passthrough/cn/%2Findex.php',
    )
    expect(redactPath('/passthrough/cn/api/x%3Ftoken%3Dsecret/more')).toBe('/passthrough/cn/api/x')
    expect(redactPath('/passthrough/cn/api/projects/')).toBe('/passthrough/cn/api/projects/')
    expect(redactPath('/passthrough/cn/%E0%A4%A')).toBe('/passthrough/cn/%25E0%25A4%25A')
  })
})
