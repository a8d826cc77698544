import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'

/** A random identifier with a readable prefix, e.g. `ws_3k9…`; 20 base36 chars carry ~103 bits. */
export function newId(prefix: string, length = 20): string {
  const bytes = randomBytes(length)
  let out = ''
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length]
  return `${prefix}_${out}`
}
