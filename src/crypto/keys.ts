import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/** Derives a purpose-specific 32-byte key from the master key, so one configured secret serves every use. */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `unigate:${purpose}`, 32))
}

const VERSION = 'v1'

/** AES-256-GCM sealing of secrets at rest: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export class SecretBox {
  private readonly key: Buffer

  constructor(masterKey: Buffer) {
    this.key = deriveKey(masterKey, 'secrets-at-rest')
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return [
      VERSION,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.')
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.')
    if (version !== VERSION || !iv || !tag || body === undefined)
      throw new Error('sealed value has an unknown format')
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value))
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T
  }
}
