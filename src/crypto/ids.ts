import { randomFillSync } from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'

/** A random identifier with a readable prefix, e.g. `ws_3k9…`; 20 base36 chars carry ~103 bits. */
export function newId(prefix: string, length = 20): string {
  let out = ''
  for (let i = 0; i < length; i++) out += ALPHABET[randomByte() % ALPHABET.length]
  return `${prefix}_${out}`
}

/**
 * Bytes from the CSPRNG, drawn 4 KB at a time: every logged API call takes an id, and one system call per
 * id showed in the request path's profile. Each byte is used once.
 */
const pool = Buffer.alloc(4096)
let next = pool.length

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool)
    next = 0
  }
  return pool[next++]!
}
