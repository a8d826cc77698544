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
  // Reject dates JavaScript silently rolls over, such as 2024-02-31.
  const check = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)))
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
