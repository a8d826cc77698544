import { randomFillSync } from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'

/** A random identifier with a readable prefix, e.g. `ws_3k9…`; 20 base36 chars carry ~103 bits. */
export function newId(prefix: string, length = 20): string {
  return `${prefix}_${randomChars(length)}`
}

/**
 * An identifier in the same form (`ac_` and 20 base36 chars) that sorts by creation time: 9 chars of the
 * millisecond, then 11 random ones (~57 bits). For rows written in bulk, the API-call log: a random key puts
 * every insert on another page of the table's primary-key index (a page written to the journal per row once
 * the table is large), a time-ordered one appends them to its last pages.
 */
export function newTimeOrderedId(prefix: string, atMs: number = Date.now()): string {
  return `${prefix}_${Math.floor(atMs).toString(36).padStart(9, '0')}${randomChars(11)}`
}

function randomChars(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += ALPHABET[randomByte() % ALPHABET.length]
  return out
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
