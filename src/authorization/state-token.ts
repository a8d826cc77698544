import { createHash, randomBytes } from 'node:crypto'

/** A state token: 256 random bits, URL-safe. It is the only thing that names a pending authorization. */
export function newStateToken(): string {
  return randomBytes(32).toString('base64url')
}

/** The store keeps only the hash, so reading the database does not yield tokens that complete a flow. */
export function stateId(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** Shape check before any lookup: anything else is a forgery and costs no database query. */
export function looksLikeStateToken(token: string | undefined): token is string {
  return token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token)
}

export function newNonce(): string {
  return randomBytes(16).toString('hex')
}
