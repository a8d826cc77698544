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
