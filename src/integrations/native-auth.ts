import { timingSafeEqual } from 'node:crypto'
import type { NativeCall } from './types.js'

/** One request header's value (the first, when repeated). */
export function headerOf(call: NativeCall, name: string): string | undefined {
  const value = call.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** Constant-time equality of two strings (a length difference answers at once: lengths are not secret). */
export function secretsEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * For providers without signed calls that send a header Unigate chose: the secret is presented as
 * `authorization: Bearer <secret>` and compared in constant time.
 */
export function bearerSecretMatches(call: NativeCall, secret: string): boolean {
  const token = /^Bearer\s+(.+)$/i.exec(headerOf(call, 'authorization') ?? '')?.[1]
  return token !== undefined && secretsEqual(token, secret)
}

/**
 * For providers that send HTTP Basic credentials set at subscription (Pipedrive's `http_auth_user` and
 * `http_auth_password`): both parts compared in constant time.
 */
export function basicCredentialsMatch(call: NativeCall, user: string, password: string): boolean {
  const encoded = /^Basic\s+(\S+)$/i.exec(headerOf(call, 'authorization') ?? '')?.[1]
  if (!encoded) return false
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return false
  // Both compared, whatever the first answers, so the time says nothing about which part was wrong.
  const userOk = secretsEqual(decoded.slice(0, colon), user)
  const passwordOk = secretsEqual(decoded.slice(colon + 1), password)
  return userOk && passwordOk
}
