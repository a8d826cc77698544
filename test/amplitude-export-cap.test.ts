import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { writeZip } from '../emulators/amplitude/index.js'
import { ProviderAnswerTooLargeError } from '../src/errors.js'
import {
  EXPORT_UNPACKED_CAP_BYTES,
  ExportReadBudget,
  ExportUnpackedTooLargeError,
  eventsOfExportArchive,
  MAX_VALUES_PER_LONG_LINE,
  OPERATION_UNPACKED_CAP_BYTES,
  readExportArchive,
} from '../src/integrations/amplitude/export-archive.js'

/** A gzipped entry of `bytes` spaces: a few hundred kilobytes of archive, any size unpacked. */
const spaces = (bytes: number) => gzipSync(Buffer.alloc(bytes, 0x20), { level: 9 })

describe("Amplitude's export archive unpacked within a cap", () => {
  it('refuses an archive whose entries unpack past the cap, as too large (so the range is read smaller)', async () => {
    const zip = writeZip([{ name: '1/1.json.gz', data: spaces(EXPORT_UNPACKED_CAP_BYTES + 1) }])
    expect(zip.length).toBeLessThan(1024 * 1024)
    const read = () => eventsOfExportArchive(zip)
    await expect(read()).rejects.toThrow(ExportUnpackedTooLargeError)
    await expect(read()).rejects.toThrow(ProviderAnswerTooLargeError)
    await expect(read()).rejects.toThrow(/unpacks to more than 268435456 bytes/)
  })

  it("charges an archive refused as too large to the request's budget, so refusals cannot go on", async () => {
    const bomb = writeZip([{ name: '1/1.json.gz', data: spaces(EXPORT_UNPACKED_CAP_BYTES + 1) }])
    const budget = new ExportReadBudget(EXPORT_UNPACKED_CAP_BYTES + EXPORT_UNPACKED_CAP_BYTES / 2)
    await expect(readExportArchive(bomb, budget, () => undefined)).rejects.toThrow(
      ExportUnpackedTooLargeError,
    )
    // Before, nothing was charged for a refused archive, and a provider could answer every range so.
    await expect(readExportArchive(bomb, budget, () => undefined)).rejects.toMatchObject({ statusCode: 502 })
  })

  it('counts every entry against one cap', async () => {
    const half = spaces(EXPORT_UNPACKED_CAP_BYTES / 2 + 1)
    const zip = writeZip([
      { name: '1/1.json.gz', data: half },
      { name: '1/2.json.gz', data: half },
    ])
    await expect(eventsOfExportArchive(zip)).rejects.toThrow(ExportUnpackedTooLargeError)
  })

  it('reads an archive under the cap', async () => {
    const line = JSON.stringify({ event_type: 'x', uuid: 'u1' })
    const zip = writeZip([{ name: '1/1.json.gz', data: gzipSync(`${line}\n${line}\n`) }])
    expect(await eventsOfExportArchive(zip)).toHaveLength(2)
  })

  it('gives the event loop turns while it reads a large archive', async () => {
    const line = JSON.stringify({ event_type: 'x', uuid: 'u' })
    const zip = writeZip([{ name: '1/1.json.gz', data: gzipSync(`${line}\n`.repeat(10_000)) }])
    let read = 0
    let readWhenOtherWorkRan: number | undefined
    await readExportArchive(zip, new ExportReadBudget(), () => {
      // Other work queued once reading began runs before the archive is done, not after it.
      if (read++ === 0) setImmediate(() => (readWhenOtherWorkRan ??= read))
    })
    expect(read).toBe(10_000)
    expect(readWhenOtherWorkRan).toBeLessThan(10_000)
  })

  it('refuses a line of more values than any event holds before parsing it (one such line held the loop 16 s)', async () => {
    // A 32 MiB line of `{},`: 11 million values, which JSON.parse took seconds over, from a 33 KB archive.
    const dense = Buffer.from(`[${'{},'.repeat(11_000_000)}{}]\n`)
    const zip = writeZip([{ name: '1/1.json.gz', data: gzipSync(dense, { level: 9 }) }])
    expect(zip.length).toBeLessThan(100_000)
    // Without the count this line parses (into one array, after seconds) and reads as an event.
    const err = await eventsOfExportArchive(zip).catch((e: unknown) => e)
    expect(err).toMatchObject({
      statusCode: 502,
      message: `Amplitude's export holds a line of more than ${MAX_VALUES_PER_LONG_LINE} values, more than any event carries; not read`,
    })
  })

  it('reads a long line of few values, and gives the loop a turn per megabyte however few lines', async () => {
    const event = (i: number) =>
      JSON.stringify({ event_type: 'x', uuid: `u${i}`, event_properties: { text: 'a'.repeat(600_000) } })
    const zip = writeZip([{ name: '1/1.json.gz', data: gzipSync([0, 1, 2, 3].map(event).join('\n')) }])
    const turns: number[] = []
    let read = 0
    await readExportArchive(zip, new ExportReadBudget(), () => {
      read++
      setImmediate(() => turns.push(read))
    })
    expect(read).toBe(4)
    // Four lines of 600 KB: a turn after the second and after the fourth, not only after 2,000 lines.
    expect(turns[0]).toBeLessThan(4)
  })

  it("charges each archive's unpacked size to the operation and stops past its cap, naming it", async () => {
    expect(OPERATION_UNPACKED_CAP_BYTES).toBe(8 * EXPORT_UNPACKED_CAP_BYTES)
    const line = `${JSON.stringify({ event_type: 'x', uuid: 'u' })}\n`
    const zip = writeZip([{ name: '1/1.json.gz', data: gzipSync(line.repeat(100)) }])
    const budget = new ExportReadBudget(150 * line.length)
    expect(await readExportArchive(zip, budget, () => undefined)).toBe(100)
    let events = 0
    const err = await readExportArchive(zip, budget, () => events++).catch((e: unknown) => e)
    expect(err).toMatchObject({
      statusCode: 502,
      message: `Amplitude's export archives for this request unpack to more than ${150 * line.length} bytes, the most Unigate reads for one request; narrow the window (start_gte, end_lt, updated_gte)`,
    })
    // Refused before any of its events is used.
    expect(events).toBe(0)
  })
})
