import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  dataJsonOf,
  deliveryBody,
  deliveryBodyWriter,
  signDelivery,
  verifyDeliverySignature,
} from './signature.js'

describe('sig256', () => {
  const secret = 'workspace-secret'
  const dataJson = JSON.stringify([{ id: 'e1', name: 'Ann' }])

  it('is base64 HMAC-SHA256 over the data text followed by the nonce', () => {
    const expected = createHmac('sha256', secret).update(`${dataJson}n-1`).digest('base64')
    expect(signDelivery(secret, dataJson, 'n-1')).toBe(expected)
  })

  it('verifies its own signature and rejects a changed data, nonce or secret', () => {
    const sig = signDelivery(secret, dataJson, 'n-1')
    expect(verifyDeliverySignature(secret, dataJson, 'n-1', sig)).toBe(true)
    expect(verifyDeliverySignature(secret, dataJson.replace('Ann', 'Bob'), 'n-1', sig)).toBe(false)
    expect(verifyDeliverySignature(secret, dataJson, 'n-2', sig)).toBe(false)
    expect(verifyDeliverySignature('other', dataJson, 'n-1', sig)).toBe(false)
    expect(verifyDeliverySignature(secret, dataJson, 'n-1', 'short')).toBe(false)
  })
})

describe('deliveryBody', () => {
  it('carries data verbatim, so the signed text is the sent text', () => {
    const dataJson = '[{"id":"e1","v":1.50}]'
    const body = deliveryBody({
      dataJson,
      webhook: { id: 'wh_1' },
      nonce: 'n',
      sig256: 's',
      type: 'VIRTUAL',
      externalXref: 'user-42',
    })
    const parsed = JSON.parse(body)
    expect(parsed).toEqual({
      data: [{ id: 'e1', v: 1.5 }],
      webhook: { id: 'wh_1' },
      nonce: 'n',
      sig256: 's',
      type: 'VIRTUAL',
      external_xref: 'user-42',
    })
    expect(dataJsonOf(body)).toBe(dataJson)
  })

  it('finds the data text even when a record has a webhook key of its own', () => {
    const dataJson = '[{"id":"x","webhook":{"a":1}},{"id":"y","webhook":2}]'
    const body = deliveryBody({ dataJson, webhook: { id: 'wh' }, nonce: 'n', sig256: 's', type: 'VIRTUAL' })
    expect(dataJsonOf(body)).toBe(dataJson)
  })

  it('writes the same text as serialising the whole envelope, keys in the same order', () => {
    const write = deliveryBodyWriter({ id: 'wh_1', name: 'a "quoted" \u2028 name' }, 'x"ref')
    for (const [dataJson, nonce, type] of [
      ['[]', 'n-1', 'VIRTUAL'],
      ['[{"id":"e\\"1"}]', 'AbC_-9', 'INITIAL-COMPLETE'],
    ] as const) {
      const sig256 = signDelivery('secret', dataJson, nonce)
      const rest = JSON.stringify({
        webhook: { id: 'wh_1', name: 'a "quoted" \u2028 name' },
        nonce,
        sig256,
        type,
        external_xref: 'x"ref',
      })
      expect(write({ dataJson, nonce, sig256, type })).toBe(`{"data":${dataJson},${rest.slice(1)}`)
    }
  })

  it('leaves external_xref out when the connection has none', () => {
    const body = deliveryBody({ dataJson: '[]', webhook: {}, nonce: 'n', sig256: 's', type: 'VIRTUAL' })
    expect(JSON.parse(body)).not.toHaveProperty('external_xref')
  })
})
