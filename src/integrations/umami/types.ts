/** Umami API shapes as @umami/api-client's OpenAPI types describe them (providers.md section 7.3). */

export type UmamiWebsite = {
  id: string
  name: string
  domain: string | null
  shareId?: string | null
  teamId?: string | null
  userId?: string | null
  createdBy?: string | null
  resetAt?: string | null
  createdAt: string
  updatedAt?: string | null
  deletedAt?: string | null
  [key: string]: unknown
}

export type UmamiPage<T> = {
  data: T[]
  count: number
  page: number
  pageSize: number
  [key: string]: unknown
}

export type UmamiEvent = {
  id: string
  websiteId: string
  sessionId: string
  createdAt: string
  urlPath: string
  urlQuery?: string | null
  referrerDomain?: string | null
  pageTitle?: string | null
  eventType: number
  eventName?: string | null
  hostname?: string | null
  country?: string | null
  city?: string | null
  device?: string | null
  os?: string | null
  browser?: string | null
  /** Never on list rows; kept for older servers that sent it. */
  distinctId?: string | null
  [key: string]: unknown
}

export type UmamiSession = {
  id: string
  websiteId: string
  hostname?: string | null
  browser?: string | null
  os?: string | null
  device?: string | null
  screen?: string | null
  language?: string | null
  country?: string | null
  region?: string | null
  city?: string | null
  firstAt: string
  lastAt: string
  visits?: number
  views?: number
  events?: number
  createdAt?: string
  distinctId?: string | null
  [key: string]: unknown
}

/** One row of `/sessions/{id}/activity`: the events of a session, newest first. */
export type UmamiActivity = {
  createdAt: string
  urlPath: string
  urlQuery?: string | null
  referrerDomain?: string | null
  eventId: string
  eventType: number
  eventName?: string | null
  visitId?: string
  hostname?: string | null
  [key: string]: unknown
}

/** Current servers answer numbers; Umami up to v2.1x answered `{value, prev}` per key. */
export type UmamiStatValue = number | { value: number; prev?: number }

export type UmamiStats = {
  pageviews?: UmamiStatValue
  visitors?: UmamiStatValue
  visits?: UmamiStatValue
  bounces?: UmamiStatValue
  totaltime?: UmamiStatValue
  [key: string]: unknown
}

export type UmamiPoint = { x: string; y: number }

export type UmamiSeries = { pageviews: UmamiPoint[]; sessions: UmamiPoint[] }

export type UmamiSendResponse = { cache?: string; sessionId?: string; visitId?: string; beep?: string }
