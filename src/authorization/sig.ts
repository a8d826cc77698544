import { createHmac, timingSafeEqual } from 'node:crypto'

/** What the success redirect carries besides `sig`; all four are signed. */
export interface SignedRedirect {
  /** The new connection's id. */
  readonly id: string
  /** The caller's own `state`, echoed unchanged ('' when none was given). */
  readonly state: string
  /** Random per redirect: a receiver that remembers nonces can refuse a replayed success URL. */
  readonly nonce: string
  /** The integration type (`posthog`, `ga4`). */
  readonly type: string
}

/**
 * The exact bytes signed: id, nonce and type (none of which can contain a newline: Unigate makes them)
 * each followed by a newline, then the caller's state last, so a state holding newlines cannot shift
 * one field into another.
 */
export function redirectSigningInput(r: SignedRedirect): string {
  return `${r.id}\n${r.nonce}\n${r.type}\n${r.state}`
}

/** sig = hex(HMAC-SHA256(key = workspace secret as UTF-8, message = redirectSigningInput)). */
export function signRedirect(secret: string, r: SignedRedirect): string {
  return createHmac('sha256', secret).update(redirectSigningInput(r), 'utf8').digest('hex')
}

/** Constant-time check of a received `sig`, as a receiver would write it. */
export function verifyRedirectSig(secret: string, r: SignedRedirect, sig: string): boolean {
  const expected = Buffer.from(signRedirect(secret, r), 'hex')
  const given = Buffer.from(sig, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
