import type { DeviceProfile, Geo, Traffic } from '../data/catalog.js'

/** Where an event happened; seeded events share one object per page. */
export interface PageLocation {
  readonly currentUrl: string
  readonly pathname?: string
  readonly host?: string
}

/** Where a visit came from; seeded events share one object per traffic source. */
export interface Campaign {
  readonly referringDomain?: string
  readonly utmSource?: string
  readonly utmMedium?: string
  readonly utmCampaign?: string
  readonly utmTerm?: string
  readonly utmContent?: string
  readonly gclid?: string
  readonly fbclid?: string
}

/** What one event tells about its session; the sessions table is an aggregate of these, as in PostHog. */
export interface SessionFacts {
  readonly ts: number
  readonly event: string
  readonly location?: PageLocation
  readonly campaign: Campaign
  /** The event's distinct id; seeded events leave it out (they all carry the session's). */
  readonly distinctId?: string
}

/** Attributes a seeded session's events share, so they need not be stored per event. */
export interface SessionProfile {
  readonly device: DeviceProfile
  readonly geo: Geo
  readonly traffic: Traffic
}

const SEARCH_DOMAINS = /(^|\.)(google|bing|duckduckgo|yahoo|baidu|yandex)\./
const SOCIAL_DOMAINS =
  /(^|\.)(t\.co|twitter\.com|x\.com|facebook\.com|linkedin\.com|reddit\.com|instagram\.com)$/
const PAID_MEDIUMS = new Set(['cpc', 'ppc', 'paid', 'paidsearch', 'paid_social', 'display'])

/**
 * A simplified version of PostHog's `$channel_type` rules
 * (PostHog/posthog@master:posthog/hogql/database/schema/channel_type.py; https://posthog.com/docs/data/channel-type).
 */
export function channelTypeOf(first: Campaign | undefined): string {
  if (!first) return 'Unknown'
  const domain = first.referringDomain ?? '$direct'
  const medium = first.utmMedium?.toLowerCase()
  const paid = first.gclid !== undefined || (medium !== undefined && PAID_MEDIUMS.has(medium))
  if (paid) return SOCIAL_DOMAINS.test(domain) || medium === 'paid_social' ? 'Paid Social' : 'Paid Search'
  if (medium === 'email' || first.utmSource?.toLowerCase() === 'newsletter') return 'Email'
  if (medium === 'social' || SOCIAL_DOMAINS.test(domain)) return 'Organic Social'
  if (SEARCH_DOMAINS.test(domain)) return 'Organic Search'
  if (domain === '$direct' && first.utmSource === undefined) return 'Direct'
  return 'Referral'
}

const YEAR_MS = 365 * 86_400_000
const CAMPAIGN_FIELDS = [
  'referringDomain',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'gclid',
  'fbclid',
] as const satisfies readonly (keyof Campaign)[]

/**
 * The order the raw sessions table picks entry and end values in: page views and screens first, other
 * events a year later for the entry (a year earlier for the end), so an autocapture or custom event before
 * the first page view does not become the landing page or the source
 * (PostHog/posthog@01c7abb7b9e6:posthog/models/raw_sessions/sql_v3.py `pageview_prio_timestamp_min`/`_max`).
 */
function entryKey(facts: SessionFacts): number {
  return facts.event === '$pageview' || facts.event === '$screen' ? facts.ts : facts.ts + YEAR_MS
}
function endKey(facts: SessionFacts): number {
  return facts.event === '$pageview' || facts.event === '$screen' ? facts.ts : facts.ts - YEAR_MS
}

/**
 * One session, kept small (references to shared objects) because a million events make ~170k of them. Its
 * fields are the sessions table's aggregates of the session's events (first/last timestamp, entry and exit
 * URL, counts, entry campaign): PostHog/posthog@master:posthog/hogql/database/schema/sessions_v2.py.
 * Each entry value is its own `argMin(value, pageview_prio_timestamp_min)` over a Nullable column, and
 * ClickHouse's argMin skips NULLs: the entry URL is the first (page view's) URL, `$entry_utm_source` the
 * first utm_source any event of the session carries, even when the entry page had none
 * (PostHog/posthog@01c7abb7b9e6:posthog/models/raw_sessions/sql_v3.py `entry_url`, `entry_utm_source`, …;
 * https://clickhouse.com/docs/sql-reference/aggregate-functions/reference/argmin "skip Null during processing").
 */
export class SessionRecord {
  start = Number.POSITIVE_INFINITY
  end = Number.NEGATIVE_INFINITY
  /**
   * Campaign of the first (page view) event as a whole: the channel type reads this one tuple
   * (`entry_channel_type_properties`, an argMin of a non-Nullable tuple, same file).
   */
  campaign?: Campaign
  private campaignKey = Number.POSITIVE_INFINITY
  /** The entry referrer and UTM parameters, each the first non-null one (see above). */
  entryCampaign?: Campaign
  /** Per-field keys of `entryCampaign`, kept only once its fields come from different events. */
  private entryCampaignKeys?: Partial<Record<keyof Campaign, number>>
  private entryCampaignKey = Number.POSITIVE_INFINITY
  entry?: PageLocation
  private entryTs = Number.POSITIVE_INFINITY
  exit?: PageLocation
  private exitTs = Number.NEGATIVE_INFINITY
  private urlList: string[] = []
  pageviews = 0
  autocaptures = 0
  screens = 0
  /**
   * The distinct id of the session's latest event: the raw sessions table keeps
   * `distinct_id AggregateFunction(argMax, String, DateTime64(6, 'UTC'))`, "ClickHouse will pick the latest
   * value of distinct_id for the session" (PostHog/posthog@master:posthog/models/raw_sessions/sql.py and
   * sql_v3.py, the raw sessions table's `distinct_id` column). A session that starts anonymous and identifies is the identified user's.
   */
  distinctId: string
  private distinctIdTs = Number.NEGATIVE_INFINITY

  constructor(
    readonly id: string,
    distinctId: string,
    readonly personUuid: string | undefined,
    readonly profile?: SessionProfile,
  ) {
    this.distinctId = distinctId
  }

  apply(facts: SessionFacts): void {
    if (facts.ts < this.start) this.start = facts.ts
    if (facts.ts > this.end) this.end = facts.ts
    const first = entryKey(facts)
    if (first < this.campaignKey) {
      this.campaign = facts.campaign
      this.campaignKey = first
    }
    this.applyEntryCampaign(facts.campaign, first)
    if (facts.distinctId !== undefined && facts.ts >= this.distinctIdTs) {
      this.distinctId = facts.distinctId
      this.distinctIdTs = facts.ts
    }
    const location = facts.location
    if (location) {
      if (first < this.entryTs) {
        this.entry = location
        this.entryTs = first
      }
      const last = endKey(facts)
      if (last >= this.exitTs) {
        this.exit = location
        this.exitTs = last
      }
      if (!this.urlList.includes(location.currentUrl)) this.urlList.push(location.currentUrl)
    }
    if (facts.event === '$pageview') this.pageviews++
    else if (facts.event === '$autocapture') this.autocaptures++
    else if (facts.event === '$screen') this.screens++
  }

  /** Each entry campaign field takes the value of the earliest-keyed event that has one. */
  private applyEntryCampaign(campaign: Campaign, key: number): void {
    const current = this.entryCampaign
    // One shared object (every seeded event of a session): no per-field bookkeeping needed.
    if (!current || (campaign === current && !this.entryCampaignKeys)) {
      this.entryCampaign = campaign
      this.entryCampaignKey = Math.min(this.entryCampaignKey, key)
      return
    }
    const keys =
      this.entryCampaignKeys ??
      Object.fromEntries(
        CAMPAIGN_FIELDS.filter((f) => current[f] !== undefined).map((f) => [f, this.entryCampaignKey]),
      )
    const merged: Record<string, string | undefined> = { ...current }
    for (const f of CAMPAIGN_FIELDS) {
      const value = campaign[f]
      if (value !== undefined && key < (keys[f] ?? Number.POSITIVE_INFINITY)) {
        merged[f] = value
        keys[f] = key
      }
    }
    this.entryCampaign = merged as Campaign
    this.entryCampaignKeys = keys
  }

  /** The distinct URLs visited, in first-visit order. */
  get urls(): readonly string[] {
    return this.urlList
  }

  /** Drops the spare capacity arrays keep after pushes; worth it for the ~170k sessions of a big seed. */
  compact(): void {
    this.urlList = this.urlList.slice()
  }

  get durationSeconds(): number {
    return Math.floor((this.end - this.start) / 1000)
  }

  /**
   * PostHog: null without page views; a bounce is one page view, no autocapture, under 10 seconds
   * (PostHog/posthog@master:posthog/hogql/database/schema/sessions_v2.py `$is_bounce`).
   */
  get isBounce(): boolean | null {
    if (this.pageviews === 0) return null
    return this.pageviews === 1 && this.autocaptures === 0 && this.durationSeconds < 10
  }

  get channelType(): string {
    return channelTypeOf(this.campaign)
  }
}

export class SessionStore {
  readonly list: SessionRecord[] = []
  private readonly byId = new Map<string, SessionRecord>()
  /** Rows sorted by start, kept until a session is added or changes, so paging sessions does not sort each time. */
  private startOrder?: Uint32Array

  add(session: SessionRecord): SessionRecord {
    this.list.push(session)
    this.byId.set(session.id, session)
    this.startOrder = undefined
    return session
  }

  /** Tells the store a session took another event (its start may have moved). */
  changed(): void {
    this.startOrder = undefined
  }

  /** Row indexes by session start. */
  *byStart(desc: boolean): Generator<number> {
    if (!this.startOrder) {
      const order = new Uint32Array(this.list.length)
      for (let i = 0; i < order.length; i++) order[i] = i
      this.startOrder = order.sort(
        (a, b) => (this.list[a] as SessionRecord).start - (this.list[b] as SessionRecord).start || a - b,
      )
    }
    const order = this.startOrder
    for (let k = 0; k < order.length; k++) yield order[desc ? order.length - 1 - k : k] as number
  }

  get(id: string): SessionRecord | undefined {
    return this.byId.get(id)
  }
}
