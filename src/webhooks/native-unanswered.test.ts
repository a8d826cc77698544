import { describe, expect, it } from 'vitest'
import {
  ApiError,
  ConnectionBusyError,
  ProviderAnswerTooLargeError,
  ProviderError,
  ProviderTimeoutError,
  ProviderUnreachableError,
  WebhooksNotPermitted,
} from '../errors.js'
import { sameTarget } from '../integrations/native-urls.js'
import { MemoryShortError } from '../outbound/heap-guard.js'
import { mayHaveSubscribed } from './native.js'

describe('mayHaveSubscribed: which failed subscribes are followed by a look-up at the provider', () => {
  it('looks when the provider got the request and its answer was lost or was no refusal', () => {
    expect(mayHaveSubscribed(new ProviderTimeoutError(1000))).toBe(true)
    expect(mayHaveSubscribed(new ProviderUnreachableError('ECONNRESET'))).toBe(true)
    expect(mayHaveSubscribed(new ProviderUnreachableError('UND_ERR_SOCKET'))).toBe(true)
    expect(mayHaveSubscribed(new ProviderAnswerTooLargeError(10))).toBe(true)
    expect(mayHaveSubscribed(new ProviderError(500, 'oops'))).toBe(true)
    expect(mayHaveSubscribed(new ProviderError(503, 'busy'))).toBe(true)
    // A 2xx Unigate could not read (not JSON) is a 502; an answer of an unexpected shape a TypeError.
    expect(
      mayHaveSubscribed(new ProviderError(502, 'the answer was not the JSON the provider answers')),
    ).toBe(true)
    expect(mayHaveSubscribed(new TypeError('BambooHR created the webhook without an id'))).toBe(true)
    expect(mayHaveSubscribed(new ApiError(502, 'answered more than the operation reads'))).toBe(true)
  })

  it('does not look after a refusal, or a failure before anything was sent', () => {
    expect(mayHaveSubscribed(new ProviderError(400, 'bad'))).toBe(false)
    expect(mayHaveSubscribed(new ProviderError(422, 'limit'))).toBe(false)
    expect(mayHaveSubscribed(new ProviderError(429, 'slow down'))).toBe(false)
    expect(mayHaveSubscribed(new WebhooksNotPermitted(403, 'scope'))).toBe(false)
    expect(mayHaveSubscribed(new ApiError(400, 'refused path'))).toBe(false)
    expect(mayHaveSubscribed(new ConnectionBusyError(1, 1))).toBe(false)
    // Unigate's own 503 while short of memory: refused before sending (and a look-up would be refused alike).
    expect(mayHaveSubscribed(new MemoryShortError(90))).toBe(false)
    expect(mayHaveSubscribed(new ProviderUnreachableError('ECONNREFUSED'))).toBe(false)
    expect(mayHaveSubscribed(new ProviderUnreachableError('ENOTFOUND'))).toBe(false)
    expect(
      mayHaveSubscribed(new ProviderUnreachableError('refused by the outbound address policy: 10.0.0.1')),
    ).toBe(false)
  })
})

describe('sameTarget', () => {
  it('matches a listed address as a URL, normalised or not, and nothing else', () => {
    const url = 'http://127.0.0.1:8080/native-webhooks/wh_1'
    expect(sameTarget(url, url)).toBe(true)
    expect(sameTarget('HTTP://127.0.0.1:8080/native-webhooks/wh_1', url)).toBe(true)
    expect(
      sameTarget('https://Example.com:443/native-webhooks/wh_1', 'https://example.com/native-webhooks/wh_1'),
    ).toBe(true)
    expect(sameTarget('http://127.0.0.1:8080/native-webhooks/wh_10', url)).toBe(false)
    expect(sameTarget('http://127.0.0.1:8080/native-webhooks/WH_1', url)).toBe(false)
    expect(sameTarget(undefined, url)).toBe(false)
    expect(sameTarget('not a url', url)).toBe(false)
  })
})
