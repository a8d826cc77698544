/**
 * The Data API metrics the emulator knows, their header `type`, and how each is computed from summed
 * counts, as the API schema defines them: bounceRate is "(Sessions Minus Engaged sessions) divided by
 * Sessions", returned as a fraction; engagementRate "Engaged sessions divided by Sessions"; the per-session
 * and per-user rates likewise (https://developers.google.com/analytics/devguides/reporting/data/v1/api-schema).
 * Types are data.proto MetricType names.
 */

type Counts = Readonly<Record<string, number>>

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b)

export const METRICS: Readonly<Record<string, { type: string; compute(c: Counts): number }>> = {
  activeUsers: { type: 'TYPE_INTEGER', compute: (c) => c.activeUsers ?? 0 },
  newUsers: { type: 'TYPE_INTEGER', compute: (c) => c.newUsers ?? 0 },
  totalUsers: { type: 'TYPE_INTEGER', compute: (c) => c.totalUsers ?? 0 },
  sessions: { type: 'TYPE_INTEGER', compute: (c) => c.sessions ?? 0 },
  engagedSessions: { type: 'TYPE_INTEGER', compute: (c) => c.engagedSessions ?? 0 },
  screenPageViews: { type: 'TYPE_INTEGER', compute: (c) => c.screenPageViews ?? 0 },
  eventCount: { type: 'TYPE_INTEGER', compute: (c) => c.eventCount ?? 0 },
  keyEvents: { type: 'TYPE_INTEGER', compute: (c) => c.keyEvents ?? 0 },
  transactions: { type: 'TYPE_INTEGER', compute: (c) => c.transactions ?? 0 },
  purchaseRevenue: { type: 'TYPE_CURRENCY', compute: (c) => c.purchaseRevenue ?? 0 },
  totalRevenue: { type: 'TYPE_CURRENCY', compute: (c) => c.totalRevenue ?? 0 },
  userEngagementDuration: { type: 'TYPE_SECONDS', compute: (c) => c.userEngagementDuration ?? 0 },
  bounceRate: {
    type: 'TYPE_FLOAT',
    compute: (c) => ratio((c.sessions ?? 0) - (c.engagedSessions ?? 0), c.sessions ?? 0),
  },
  engagementRate: { type: 'TYPE_FLOAT', compute: (c) => ratio(c.engagedSessions ?? 0, c.sessions ?? 0) },
  averageSessionDuration: {
    type: 'TYPE_SECONDS',
    compute: (c) => ratio(c.sessionDuration ?? 0, c.sessions ?? 0),
  },
  screenPageViewsPerSession: {
    type: 'TYPE_FLOAT',
    compute: (c) => ratio(c.screenPageViews ?? 0, c.sessions ?? 0),
  },
  sessionsPerUser: { type: 'TYPE_FLOAT', compute: (c) => ratio(c.sessions ?? 0, c.activeUsers ?? 0) },
  eventCountPerUser: { type: 'TYPE_FLOAT', compute: (c) => ratio(c.eventCount ?? 0, c.activeUsers ?? 0) },
  eventsPerSession: { type: 'TYPE_FLOAT', compute: (c) => ratio(c.eventCount ?? 0, c.sessions ?? 0) },
  sessionKeyEventRate: {
    type: 'TYPE_FLOAT',
    compute: (c) => ratio(Math.min(c.keyEvents ?? 0, c.sessions ?? 0), c.sessions ?? 0),
  },
  averagePurchaseRevenue: {
    type: 'TYPE_CURRENCY',
    compute: (c) => ratio(c.purchaseRevenue ?? 0, c.transactions ?? 0),
  },
}

/** MetricValue.value is a string (data.proto); integers print plainly, floats with full precision. */
export function formatMetric(type: string, value: number): string {
  return type === 'TYPE_INTEGER' ? String(Math.round(value)) : String(value)
}
