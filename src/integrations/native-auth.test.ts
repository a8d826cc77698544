import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { bamboohrSignatureValid, SIGNATURE_TOLERANCE_MS } from './bamboohr/native-webhooks.js'
import { basicCredentialsMatch, bearerSecretMatches } from './native-auth.js'
import type { NativeCall } from './types.js'

const call = (headers: Record<string, string>, rawBody = '{}'): NativeCall => ({
  headers,
  body: JSON.parse(rawBody),
  rawBody,
})
const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`

describe('how a provider call proves its subscription', () => {
  it('takes Basic credentials only when both user and password match', () => {
    expect(basicCredentialsMatch(call({ authorization: basic('unigate:s3cret') }), 'unigate', 's3cret')).toBe(
      true,
    )
    expect(
      basicCredentialsMatch(call({ authorization: basic('unigate:s3cret:x') }), 'unigate', 's3cret'),
    ).toBe(false)
    expect(basicCredentialsMatch(call({ authorization: basic('other:s3cret') }), 'unigate', 's3cret')).toBe(
      false,
    )
    expect(basicCredentialsMatch(call({ authorization: basic('unigates3cret') }), 'unigate', 's3cret')).toBe(
      false,
    )
    expect(basicCredentialsMatch(call({ authorization: 'Bearer s3cret' }), 'unigate', 's3cret')).toBe(false)
    expect(basicCredentialsMatch(call({}), 'unigate', 's3cret')).toBe(false)
  })

  it('takes a bearer secret only when it is the secret', () => {
    expect(bearerSecretMatches(call({ authorization: 'Bearer abc' }), 'abc')).toBe(true)
    expect(bearerSecretMatches(call({ authorization: 'Bearer abcd' }), 'abc')).toBe(false)
    expect(bearerSecretMatches(call({ authorization: basic('x:abc') }), 'abc')).toBe(false)
  })

  it("checks BambooHR's signature over the exact body and a timestamp within the window", () => {
    const key = 'k'.repeat(64)
    const body = '{"employees":[]}'
    const now = 1_780_000_000_000
    const signed = (ts: number, text = body, k = key) =>
      call(
        {
          'x-bamboohr-timestamp': String(ts),
          'x-bamboohr-signature': createHmac('sha256', k)
            .update(text + String(ts))
            .digest('hex'),
        },
        body,
      )
    const ts = now / 1000
    const window = SIGNATURE_TOLERANCE_MS / 1000
    expect(bamboohrSignatureValid(signed(ts), key, now)).toBe(true)
    expect(bamboohrSignatureValid(signed(ts - window + 1), key, now)).toBe(true)
    expect(bamboohrSignatureValid(signed(ts - window - 1), key, now)).toBe(false)
    expect(bamboohrSignatureValid(signed(ts + window + 1), key, now)).toBe(false)
    expect(bamboohrSignatureValid(signed(ts, '{"employees":[1]}'), key, now)).toBe(false)
    expect(bamboohrSignatureValid(signed(ts, body, 'other'), key, now)).toBe(false)
    expect(bamboohrSignatureValid(call({ 'x-bamboohr-timestamp': String(ts) }, body), key, now)).toBe(false)
  })
})
