import { MatomoApiError } from './errors.js'
import type { MatomoVisitRecord } from './state.js'

type Getter = (v: MatomoVisitRecord) => readonly string[]

/**
 * The visit-level segments this emulator knows (a subset of Matomo's), by name (matomo-org/matomo@f09912cb:
 * plugins/CoreHome/Columns/VisitId.php, VisitorId.php, UserId.php; plugins/Referrers/Columns/
 * Referrer{Name,Type}.php; plugins/UserCountry/Columns/Country.php; plugins/Actions/Columns/PageUrl.php;
 * deviceType takes DeviceDetector's lower-case names: plugins/DevicesDetection/Columns/DeviceType.php
 * getEnumColumnValues).
 */
const SEGMENTS: Readonly<Record<string, Getter>> = {
  visitId: (v) => [v.idVisit],
  visitorId: (v) => [v.visitorId],
  userId: (v) => (v.userId ? [v.userId] : []),
  referrerName: (v) => [String(v.referrerName ?? '')],
  referrerType: (v) => [String(v.referrerType ?? '')],
  countryCode: (v) => [String(v.countryCode ?? '')],
  deviceType: (v) => [String(v.deviceType ?? '').toLowerCase()],
  pageUrl: (v) => v.actionDetails.filter((a) => a.type === 'action').map((a) => String(a.url ?? '')),
}

const OPERATORS = ['==', '!=', '=@', '!@', '=^', '=$'] as const
type Operator = (typeof OPERATORS)[number]

function test(values: readonly string[], op: Operator, expected: string): boolean {
  switch (op) {
    case '==':
      return values.includes(expected)
    case '!=':
      return !values.includes(expected)
    case '=@':
      return values.some((v) => v.toLowerCase().includes(expected.toLowerCase()))
    case '!@':
      return !values.some((v) => v.toLowerCase().includes(expected.toLowerCase()))
    case '=^':
      return values.some((v) => v.startsWith(expected))
    case '=$':
      return values.some((v) => v.endsWith(expected))
  }
}

/**
 * Compiles a segment: `;` is AND, `,` is OR (binding tighter), values URL-encoded inside the segment
 * (matomo-org/matomo@f09912cb:core/Segment/SegmentExpression.php AND_DELIMITER, OR_DELIMITER, MATCH_*;
 * https://developer.matomo.org/api-reference/reporting-api-segmentation).
 * An unknown segment name (core/Segment.php "is not a supported segment") or a malformed condition
 * (SegmentExpression.php "is not valid") is an error, as at Matomo.
 */
export function compileSegment(segment: string | undefined): (v: MatomoVisitRecord) => boolean {
  if (!segment) return () => true
  const and = segment.split(';').map((part) =>
    part.split(',').map((condition) => {
      const m = /^([A-Za-z0-9_.]+)(==|!=|=@|!@|=\^|=\$)(.*)$/.exec(condition)
      if (!m) throw new MatomoApiError(`The segment condition '${condition}' is not valid.`)
      const getter = SEGMENTS[m[1] as string]
      if (!getter) throw new MatomoApiError(`Segment '${m[1]}' is not a supported segment.`)
      let value: string
      try {
        value = decodeURIComponent(m[3] as string)
      } catch {
        throw new MatomoApiError(`The segment condition '${condition}' is not valid.`)
      }
      return (v: MatomoVisitRecord) => test(getter(v), m[2] as Operator, value)
    }),
  )
  return (v) => and.every((or) => or.some((c) => c(v)))
}
