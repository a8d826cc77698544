import { setImmediate as nextTurn } from 'node:timers/promises'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { ApiError, ProviderAnswerTooLargeError } from '../../errors.js'
import { holdsValues } from '../value-count.js'
import type { AmplitudeExportEvent } from './provider-types.js'
import { readZip, TOO_LARGE } from './zip.js'

const gunzipWithin = promisify(gunzip)

/**
 * The most one export archive may unpack to, zip and gzip layers together. The download is capped
 * (UNIGATE_PROVIDER_MAX_BODY_BYTES), but a kilobyte of deflate can unpack to hundreds of megabytes: past this
 * cap the archive counts as too large, and the range is read in smaller pieces.
 */
export const EXPORT_UNPACKED_CAP_BYTES = 256 * 1024 * 1024

/**
 * The most the archives of one operation may unpack to in all: eight archives at the cap. A list reads
 * archives oldest first and stops once its page is known, so only a selective filter over a long, busy
 * window reads this much; every unpacked byte is parsed, and a provider answering archives at the cap for
 * every day of a year would otherwise keep a core busy for an hour for one request.
 */
export const OPERATION_UNPACKED_CAP_BYTES = 8 * EXPORT_UNPACKED_CAP_BYTES

/** Export lines parsed between two turns of the event loop, so a large archive holds no other request long. */
const LINES_PER_TURN = 2_000

/** Unpacked bytes parsed between two turns of the event loop, however few lines they make. */
const BYTES_PER_TURN = 1024 * 1024

/**
 * A line longer than this has its values counted before it is parsed. JSON.parse takes its time per value,
 * not per byte: a 32 MiB line of `[{},{},…]` (11 million values, from a 33 KB archive) held the event loop
 * for 16 s, while a line of the same size made of long strings parses in milliseconds.
 */
const COUNTED_LINE_BYTES = 256 * 1024

/**
 * The most values (counted as commas, `[` and `{`, those in strings included: value-count.ts) a line over
 * COUNTED_LINE_BYTES may hold: about 60 ms of JSON.parse in the worst case on a slow machine. Amplitude's
 * own SDK sends at most 1,000 event properties and 1,000 user properties an event (amplitude-js
 * `MAX_PROPERTY_KEYS`), so an event holds a few thousand values, far below this.
 */
export const MAX_VALUES_PER_LONG_LINE = 100_000

/** An export archive that unpacks to more than EXPORT_UNPACKED_CAP_BYTES. */
export class ExportUnpackedTooLargeError extends ProviderAnswerTooLargeError {
  constructor() {
    super(
      EXPORT_UNPACKED_CAP_BYTES,
      `its export archive unpacks to more than ${EXPORT_UNPACKED_CAP_BYTES} bytes, the cap on an unpacked export`,
    )
    this.name = 'ExportUnpackedTooLargeError'
  }
}

/** The unpacked bytes one operation's archives may still take (OPERATION_UNPACKED_CAP_BYTES). */
export class ExportReadBudget {
  private left: number

  constructor(private readonly cap = OPERATION_UNPACKED_CAP_BYTES) {
    this.left = cap
  }

  spend(bytes: number): void {
    this.left -= bytes
    if (this.left < 0) {
      throw new ApiError(
        502,
        `Amplitude's export archives for this request unpack to more than ${this.cap} bytes, ` +
          'the most Unigate reads for one request; narrow the window (start_gte, end_lt, updated_gte)',
      )
    }
  }
}

/**
 * The archive's `*.json.gz` entries unpacked, within EXPORT_UNPACKED_CAP_BYTES in all (both layers off the
 * event loop, on zlib's thread pool), charged to `budget`. All of it is unpacked before any event is read, so
 * an archive over the cap fails before its events are used (and the range is read again in smaller pieces);
 * what such an archive made zlib unpack, up to the cap, is charged too, or a provider answering every range
 * with an archive just over the cap could have one request unpack without end.
 */
async function unpack(zip: Buffer, budget: ExportReadBudget): Promise<Buffer[]> {
  let left = EXPORT_UNPACKED_CAP_BYTES
  const out: Buffer[] = []
  try {
    for (const entry of await readZip(zip, left)) {
      left -= entry.data.length
      if (!entry.name.endsWith('.gz')) {
        out.push(entry.data)
        continue
      }
      const data = await gunzipWithin(entry.data, { maxOutputLength: Math.max(1, left) })
      left -= data.length
      out.push(data)
    }
  } catch (err) {
    if ((err as { code?: unknown }).code !== TOO_LARGE) throw err
    budget.spend(EXPORT_UNPACKED_CAP_BYTES)
    throw new ExportUnpackedTooLargeError()
  }
  budget.spend(out.reduce((sum, t) => sum + t.length, 0))
  return out
}

/**
 * Gives every event of an export archive (a zip of `*.json.gz` files, one JSON event per line) to `onEvent`,
 * in order, one line at a time: no whole-archive text nor every event at once is held, and the event loop
 * gets a turn every LINES_PER_TURN lines. `budget` is charged the unpacked size first (see unpack). Answers the number of
 * events read.
 */
export async function readExportArchive(
  zip: Buffer,
  budget: ExportReadBudget,
  onEvent: (event: AmplitudeExportEvent) => void,
): Promise<number> {
  const texts = await unpack(zip, budget)
  let lines = 0
  let events = 0
  let bytesThisTurn = 0
  for (const text of texts) {
    for (let start = 0; start < text.length; ) {
      const newline = text.indexOf(0x0a, start)
      const end = newline < 0 ? text.length : newline
      if (end - start > COUNTED_LINE_BYTES && holdsValues(text, MAX_VALUES_PER_LONG_LINE, start, end)) {
        throw new ApiError(
          502,
          `Amplitude's export holds a line of more than ${MAX_VALUES_PER_LONG_LINE} values, more than any ` +
            'event carries; not read',
        )
      }
      const line = text.toString('utf8', start, end)
      bytesThisTurn += end - start
      start = end + 1
      if (line.trim() !== '') {
        onEvent(JSON.parse(line) as AmplitudeExportEvent)
        events++
      }
      if (++lines % LINES_PER_TURN === 0 || bytesThisTurn >= BYTES_PER_TURN) {
        bytesThisTurn = 0
        await nextTurn()
      }
    }
  }
  return events
}

/** Every event of one archive, as a list (for a caller that needs them all, and tests). */
export async function eventsOfExportArchive(zip: Buffer): Promise<AmplitudeExportEvent[]> {
  const out: AmplitudeExportEvent[] = []
  await readExportArchive(zip, new ExportReadBudget(), (e) => out.push(e))
  return out
}
