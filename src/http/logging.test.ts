import { Writable } from 'node:stream'
import pino from 'pino'
import { errors } from 'undici'
import { describe, expect, it } from 'vitest'
import { loggerOptions, redactPath, serializeError } from './logging.js'

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

describe('serializeError', () => {
  it("names the error's type by its name, which a bundle's renamed class keeps", () => {
    // What esbuild makes of a clashing class name without keepNames.
    class ProviderError2 extends Error {
      constructor(message: string) {
        super(message)
        this.name = 'ProviderError'
      }
    }
    const out = serializeError(new ProviderError2('posthog answered 500'))
    expect(out.type).toBe('ProviderError')
    expect(out.message).toBe('posthog answered 500')
    expect(out.stack).toContain('posthog answered 500')
  })

  it("keeps Node's and undici's own names, and the constructor's where the name says only Error", () => {
    expect(serializeError(new TypeError('bad')).type).toBe('TypeError')
    expect(serializeError(new errors.SocketError('closed')).type).toBe('SocketError')
    class Unnamed extends Error {}
    expect(serializeError(new Unnamed('x')).type).toBe('Unnamed')
  })

  it('is what the server logs an error with', () => {
    const lines: string[] = []
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const options = loggerOptions('info', stream) as { serializers: Record<string, unknown> }
    const log = pino(options as pino.LoggerOptions, stream)
    class Renamed3 extends Error {
      override name = 'ProviderTimeoutError'
    }
    log.error({ err: new Renamed3('slow') }, 'failed')
    expect(JSON.parse(lines[0]!).err).toMatchObject({ type: 'ProviderTimeoutError', message: 'slow' })
  })
})
