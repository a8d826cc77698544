const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/

/**
 * Parses a query date: `YYYY-MM-DD` (midnight UTC) or an ISO-8601 date-time; one without a zone is
 * read as UTC. Returns undefined for anything else, including impossible calendar dates.
 */
export function parseQueryDate(value: string): Date | undefined {
  const dateOnly = DATE_ONLY.exec(value)
  const dateTime = dateOnly ? undefined : DATE_TIME.exec(value)
  const parts = dateOnly ?? dateTime
  if (!parts) return undefined
  const [, y, m, d] = parts
  const iso = dateOnly ? `${value}T00:00:00Z` : dateTime?.[7] ? value : `${value}Z`
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return undefined
  // Reject dates JavaScript silently rolls over, such as 2024-02-31 (setUTCFullYear, as Date.UTC reads
  // years 0-99 as 1900-1999: 0000-02-29 exists, 1900-02-29 does not).
  const check = new Date(0)
  check.setUTCFullYear(Number(y), Number(m) - 1, Number(d))
  if (check.getUTCMonth() !== Number(m) - 1 || check.getUTCDate() !== Number(d)) return undefined
  return date
}

const DAY_MS = 86_400_000
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years `toISOString` writes with four digits. */
const FOUR_DIGIT_YEARS = { from: -62_167_219_200_000, to: 253_402_300_799_999 }
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`)
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`)
const pad4 = (n: number) => (n < 1000 ? `0${pad3(n)}` : `${n}`)

/**
 * `date.toISOString()`, written in JavaScript: the native one was the costliest call of shaping a page of
 * records (every date of every record goes through it), and this is about twice as fast. Years outside
 * 0000-9999 (written with six digits and a sign) and invalid dates go to the native one.
 */
export function isoString(date: Date): string {
  const ms = date.getTime()
  if (!(ms >= FOUR_DIGIT_YEARS.from && ms <= FOUR_DIGIT_YEARS.to)) return date.toISOString()
  const days = Math.floor(ms / DAY_MS)
  let rest = ms - days * DAY_MS
  // Civil date of a day count (Howard Hinnant's days_from_civil, inverted), in 400-year eras from 0000-03-01.
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const dayOfEra = z - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(rest - seconds * 1000)}Z`
}

/** Two ASCII digits at `i` as a number, or -1 when either is not a digit. */
function twoDigits(text: string, i: number): number {
  const a = text.charCodeAt(i) - 48
  const b = text.charCodeAt(i + 1) - 48
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0

/**
 * What `new Date(text).toISOString()` writes, read straight off `text` when it is a UTC timestamp in the
 * fixed form providers write, `YYYY-MM-DDTHH:MM:SS.fff` with three to nine fraction digits and `Z` (HogQL's
 * `2024-12-31T00:04:40.133000Z`), every field in range: the first 23 characters and `Z`. Undefined for
 * anything else (another form, or a date the native parser would roll over, such as February 30): the
 * caller then parses a Date. Parsing each timestamp of a page into a Date and writing it back as text was
 * the costliest part of mapping a page of PostHog events (issue 12).
 */
export function isoTextOf(text: string): string | undefined {
  const n = text.length
  if (n < 24 || n > 30 || text.charCodeAt(n - 1) !== 90 /* Z */) return undefined
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':')
    return undefined
  if (text[19] !== '.') return undefined
  const hi = twoDigits(text, 0)
  const lo = twoDigits(text, 2)
  const month = twoDigits(text, 5)
  const day = twoDigits(text, 8)
  if (hi < 0 || lo < 0 || month < 1 || month > 12 || day < 1) return undefined
  const hours = twoDigits(text, 11)
  const minutes = twoDigits(text, 14)
  const seconds = twoDigits(text, 17)
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) return undefined
  if (day > 28 && day > (month === 2 && isLeap(hi * 100 + lo) ? 29 : MONTH_DAYS[month - 1]!)) return undefined
  for (let i = 20; i < n - 1; i++) {
    const d = text.charCodeAt(i) - 48
    if (d < 0 || d > 9) return undefined
  }
  return n === 24 ? text : `${text.slice(0, 23)}Z`
}
