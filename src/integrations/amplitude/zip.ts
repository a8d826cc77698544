import { constants } from 'node:buffer'
import { promisify } from 'node:util'
import { inflateRaw } from 'node:zlib'

const inflateRawWithin = promisify(inflateRaw)

/**
 * A minimal ZIP reader for Amplitude's export archive. Node's zlib inflates the entries but has no ZIP
 * container support, and the project adds no dependency for this one format. Reads the central
 * directory (sizes are reliable there even when local headers use data descriptors); stored and deflated
 * entries only, which is what ZIP writers produce; no ZIP64 (the export is capped at 4 GB).
 */
export interface ZipEntry {
  readonly name: string
  readonly data: Buffer
}

const EOCD = 0x06054b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50

export class ZipError extends Error {}

/** What zlib throws when an output passes its `maxOutputLength`; a stored entry over the budget throws it too. */
export const TOO_LARGE = 'ERR_BUFFER_TOO_LARGE'

/**
 * The entries, unpacked to at most `maxBytes` in all: past that, a RangeError with code TOO_LARGE (a small
 * archive can unpack to gigabytes). Deflated entries are inflated on zlib's thread pool, off the event loop.
 */
export async function readZip(zip: Buffer, maxBytes: number = constants.MAX_LENGTH): Promise<ZipEntry[]> {
  let budget = maxBytes
  let eocd = -1
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i
      break
    }
  }
  if (eocd < 0) throw new ZipError('not a zip archive (no end of central directory)')
  const count = zip.readUInt16LE(eocd + 10)
  let at = zip.readUInt32LE(eocd + 16)
  const entries: ZipEntry[] = []
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new ZipError('corrupt zip central directory')
    const method = zip.readUInt16LE(at + 10)
    const compressed = zip.readUInt32LE(at + 20)
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const local = zip.readUInt32LE(at + 42)
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength)
    at += 46 + nameLength + extraLength + commentLength
    if (zip.readUInt32LE(local) !== LOCAL) throw new ZipError(`corrupt zip local header for ${name}`)
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const raw = zip.subarray(start, start + compressed)
    if (name.endsWith('/')) continue
    if (method === 0) {
      if (raw.length > budget)
        throw Object.assign(new RangeError(`zip entry ${name} passes the cap`), { code: TOO_LARGE })
      budget -= raw.length
      entries.push({ name, data: Buffer.from(raw) })
    } else if (method === 8) {
      const data = await inflateRawWithin(raw, { maxOutputLength: Math.max(1, budget) })
      budget -= data.length
      entries.push({ name, data })
    } else throw new ZipError(`zip entry ${name} uses unsupported compression method ${method}`)
  }
  return entries
}
