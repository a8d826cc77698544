import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * `sig256` exactly as spec section 6.2 item 4 defines it: base64 of HMAC-SHA256, keyed with the workspace
 * secret, over the JSON text of `data` as it appears in the sent body, followed by the nonce.
 */
export function signDelivery(secret: string, dataJson: string, nonce: string): string {
  return createHmac('sha256', secret).update(dataJson).update(nonce).digest('base64')
}

/** What a receiver does: recompute and compare in constant time. */
export function verifyDeliverySignature(
  secret: string,
  dataJson: string,
  nonce: string,
  sig256: string,
): boolean {
  const expected = Buffer.from(signDelivery(secret, dataJson, nonce), 'base64')
  const given = Buffer.from(sig256, 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export interface DeliveryEnvelope extends DeliveryPageEnvelope {
  readonly webhook: object
  readonly externalXref?: string
}

/** What differs between the deliveries of one webhook. */
export interface DeliveryPageEnvelope {
  /** `data` as JSON text: inserted verbatim, so the bytes signed are the bytes sent. */
  readonly dataJson: string
  readonly nonce: string
  readonly sig256: string
  readonly type: string
}

/**
 * Writes the delivery bodies `{data, webhook, nonce, sig256, type, external_xref}` (unified-behaviour.md
 * 1.1) of one webhook: the webhook and external_xref are serialised once, not per delivery. Built as text
 * rather than re-serialised, so `data` cannot drift from what was signed.
 */
export function deliveryBodyWriter(
  webhook: object,
  externalXref?: string,
): (page: DeliveryPageEnvelope) => string {
  const webhookJson = JSON.stringify(webhook)
  const tail = externalXref !== undefined ? `,"external_xref":${JSON.stringify(externalXref)}}` : '}'
  return (p) =>
    `{"data":${p.dataJson},"webhook":${webhookJson},"nonce":${JSON.stringify(p.nonce)},` +
    `"sig256":${JSON.stringify(p.sig256)},"type":${JSON.stringify(p.type)}${tail}`
}

/** One delivery body; see deliveryBodyWriter. */
export function deliveryBody(e: DeliveryEnvelope): string {
  return deliveryBodyWriter(e.webhook, e.externalXref)(e)
}

/**
 * Pulls the JSON text of `data` back out of a received body. A body built by deliveryBody starts with
 * `{"data":` and the data text ends at the last `,"webhook":` (a record may have a `webhook` key of its own;
 * nothing after the envelope's `webhook` key can contain that text outside an escaped string).
 */
export function dataJsonOf(body: string): string | undefined {
  const prefix = '{"data":'
  if (!body.startsWith(prefix)) return undefined
  const end = body.lastIndexOf(',"webhook":')
  if (end < 0) return undefined
  const candidate = body.slice(prefix.length, end)
  try {
    JSON.parse(candidate)
    return candidate
  } catch {
    return undefined
  }
}
