import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { writeZip } from '../emulators/amplitude/index.js'
import { ProviderAnswerTooLargeError } from '../src/errors.js'
import {
  EXPORT_UNPACKED_CAP_BYTES,
  ExportUnpackedTooLargeError,
  eventsOfExportArchive,
} from '../src/integrations/amplitude/event.js'

/** A gzipped entry of `bytes` spaces: a few hundred kilobytes of archive, any size unpacked. */
const spaces = (bytes: number) => gzipSync(Buffer.alloc(bytes, 0x20), { level: 9 })

describe("Amplitude's export archive unpacked within a cap", () => {
  it('refuses an archive whose entries unpack past the cap, as too large (so the range is read smaller)', () => {
    const zip = writeZip([{ name: '1/1.json.gz', data: spaces(EXPORT_UNPACKED_CAP_BYTES + 1) }])
    expect(zip.length).toBeLessThan(1024 * 1024)
    const read = () => eventsOfExportArchive(zip)
    expect(read).toThrow(ExportUnpackedTooLargeError)
    expect(read).toThrow(ProviderAnswerTooLargeError)
    expect(read).toThrow(/unpacks to more than 268435456 bytes/)
  })

  it('counts every entry against one cap', () => {
    const half = spaces(EXPORT_UNPACKED_CAP_BYTES / 2 + 1)
    const zip = writeZip([
      { name: '1/1.json.gz', data: half },
      { name: '1/2.json.gz', data: half },
    ])
    expect(() => eventsOfExportArchive(zip)).toThrow(ExportUnpackedTooLargeError)
  })

  it('reads an archive under the cap', () => {
    const line = JSON.stringify({ event_type: 'x', uuid: 'u1' })
    const zip = writeZip([{ name: '1/1.json.gz', data: gzipSync(`${line}\n${line}\n`) }])
    expect(eventsOfExportArchive(zip)).toHaveLength(2)
  })
})
