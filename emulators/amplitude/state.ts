import { randomUUID } from 'node:crypto'
import { DAY_MS, SeededRandom, uuidV4 } from '../kit/index.js'

export interface AmplitudeEventRecord {
  uuid: string
  $insert_id?: string
  event_type: string
  /** Milliseconds; rendered as `YYYY-MM-DD HH:MM:SS.ffffff` on the way out. */
  eventTimeMs: number
  uploadTimeMs: number
  user_id: string | null
  device_id: string
  amplitude_id: number
  session_id: number
  event_id: number
  app: number
  event_properties: Record<string, unknown>
  user_properties: Record<string, unknown>
  platform: string
  os_name: string
  device_type: string
  language: string
  country: string
  region: string
  city: string
  [key: string]: unknown
}

/** The revenue fields HTTP V2 takes at the top level of an event (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md). */
const REVENUE_FIELDS = ['price', 'quantity', 'revenue', 'productId', 'revenueType', 'currency'] as const

/**
 * Where Amplitude keeps them: event properties `$price`, `$quantity`, `$revenue`, `$productId`,
 * `$revenueType` (amplitude/amplitude-docs@6e7e48e:content/collections/revenue-ltv/en/revenue-ltv-track-new-user-monetization.md)
 * and `$currency` (…/data/en/currency-conversion.md); the export schema has no top-level revenue field
 * (…/api/en/export.md, "Response schema"). Revenue is price × quantity when a price is sent (quantity
 * defaults to 1), else `revenue` (http-v2.md, `revenue`).
 */
export function revenueProperties(e: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of REVENUE_FIELDS) if (e[k] !== undefined && e[k] !== null) out[`$${k}`] = e[k]
  if (typeof e.price === 'number') {
    out.$quantity = typeof e.quantity === 'number' ? e.quantity : 1
    out.$revenue = e.price * (out.$quantity as number)
  }
  return out
}

export interface AmplitudeUser {
  amplitude_id: number
  user_id: string | null
  device_id: string
  properties: Record<string, unknown>
  deleted: boolean
}

const PLACES = [
  { country: 'United States', region: 'Texas', city: 'Austin' },
  { country: 'Germany', region: 'Berlin', city: 'Berlin' },
  { country: 'France', region: 'Île-de-France', city: 'Paris' },
  { country: 'Japan', region: 'Tokyo', city: 'Tokyo' },
]
const PAGES = ['/', '/pricing', '/docs', '/signup']
const CUSTOM = ['purchase', 'Signed Up', 'Invite Sent', 'session_start']

/** `2024-05-01 10:00:00.123000`: Amplitude's UTC time format. */
export const amplitudeTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 23).replace('T', ' ')}000`

export class AmplitudeState {
  readonly events: AmplitudeEventRecord[] = []
  readonly users = new Map<number, AmplitudeUser>()
  /**
   * `insert_id` seen per user (Amplitude keys them by device and keeps them 7 days:
   * amplitude/amplitude-docs@6e7e48e:content/collections/api/en/http-v2.md, "Event deduplication").
   */
  private readonly insertIds = new Map<string, number>()
  /** The project's time zone, in which Dashboard REST counts days (settings only; no API reads it). */
  timezone = 'UTC'
  private nextEventId = 1
  private nextAmplitudeId = 100_000_001

  constructor(
    readonly app: number,
    seed: number,
    users: number,
    events: number,
    untilMs: number,
  ) {
    const r = new SeededRandom(seed)
    const people: AmplitudeUser[] = []
    for (let i = 0; i < Math.max(1, users); i++) {
      people.push(
        this.addUser(
          i % 5 === 4 ? null : `user_${String(i + 1).padStart(4, '0')}`,
          `device-${uuidV4(r).slice(0, 13)}`,
        ),
      )
      const u = people[people.length - 1] as AmplitudeUser
      u.properties = {
        email: u.user_id ? `${u.user_id}@example.com` : undefined,
        plan: r.pick(['free', 'pro']),
      }
    }
    const from = untilMs - 30 * DAY_MS
    let made = 0
    while (made < events) {
      const u = r.pick(people)
      const place = r.pick(PLACES)
      const session = r.int(from, untilMs - 3_600_000)
      const count = Math.min(events - made, r.int(1, 6))
      let t = session
      for (let k = 0; k < count; k++) {
        const page = r.pick(PAGES)
        const isPage = k === 0 || r.chance(0.6)
        const type = isPage ? '[Amplitude] Page Viewed' : r.pick(CUSTOM)
        this.events.push({
          uuid: uuidV4(r),
          event_type: type,
          eventTimeMs: t,
          uploadTimeMs: t + r.int(200, 120_000),
          user_id: u.user_id,
          device_id: u.device_id,
          amplitude_id: u.amplitude_id,
          session_id: session,
          event_id: this.nextEventId++,
          app,
          event_properties: isPage
            ? {
                '[Amplitude] Page URL': `https://acme.example${page}`,
                '[Amplitude] Page Title': page,
                '[Amplitude] Page Path': page,
              }
            : type === 'purchase'
              ? revenueProperties({ price: r.int(5, 100), quantity: r.int(1, 3), currency: 'EUR' })
              : {},
          user_properties: r.chance(0.3) ? { utm_source: 'newsletter' } : {},
          platform: 'Web',
          os_name: r.pick(['Chrome', 'Firefox', 'Safari']),
          os_version: '124',
          device_type: r.pick(['Mac', 'Windows', 'Apple iPhone']),
          language: 'English',
          country: place.country,
          region: place.region,
          city: place.city,
          paying: null,
        })
        t += r.int(5_000, 300_000)
        made++
      }
    }
    this.events.sort((a, b) => a.uploadTimeMs - b.uploadTimeMs)
  }

  addUser(userId: string | null, deviceId: string): AmplitudeUser {
    const u: AmplitudeUser = {
      amplitude_id: this.nextAmplitudeId++,
      user_id: userId,
      device_id: deviceId,
      properties: {},
      deleted: false,
    }
    this.users.set(u.amplitude_id, u)
    return u
  }

  userFor(userId: string | undefined, deviceId: string | undefined): AmplitudeUser {
    const found = [...this.users.values()].find(
      (u) =>
        !u.deleted && ((userId && u.user_id === userId) || (!userId && deviceId && u.device_id === deviceId)),
    )
    return found ?? this.addUser(userId ?? null, deviceId ?? `device-${randomUUID().slice(0, 13)}`)
  }

  /** Ingests one HTTP V2 event; answers false when its insert_id was already seen for this user or device. */
  ingest(e: Record<string, unknown>, now: number): boolean {
    const user = this.userFor(e.user_id as string | undefined, e.device_id as string | undefined)
    const insertId = typeof e.insert_id === 'string' ? e.insert_id : undefined
    if (insertId) {
      const key = `${user.amplitude_id}:${insertId}`
      const seen = this.insertIds.get(key)
      if (seen !== undefined && now - seen < 7 * DAY_MS) return false
      this.insertIds.set(key, now)
    }
    const time = typeof e.time === 'number' ? e.time : now
    this.events.push({
      uuid: randomUUID(),
      ...(insertId ? { $insert_id: insertId } : {}),
      event_type: String(e.event_type),
      eventTimeMs: time,
      uploadTimeMs: now,
      user_id: user.user_id,
      device_id: user.device_id,
      amplitude_id: user.amplitude_id,
      session_id: typeof e.session_id === 'number' ? e.session_id : -1,
      event_id: this.nextEventId++,
      app: this.app,
      event_properties: {
        ...((e.event_properties as Record<string, unknown>) ?? {}),
        ...revenueProperties(e),
      },
      user_properties: {},
      platform: String(e.platform ?? 'Web'),
      os_name: String(e.os_name ?? ''),
      ...(typeof e.os_version === 'string' ? { os_version: e.os_version } : {}),
      device_type: String(e.device_model ?? ''),
      language: String(e.language ?? ''),
      country: String(e.country ?? ''),
      region: String(e.region ?? ''),
      city: String(e.city ?? ''),
    })
    return true
  }

  /** An event as the export and User Activity render it. */
  render(e: AmplitudeEventRecord): Record<string, unknown> {
    const { eventTimeMs, uploadTimeMs, ...rest } = e
    return {
      ...rest,
      event_time: amplitudeTime(eventTimeMs),
      server_upload_time: amplitudeTime(uploadTimeMs),
    }
  }
}
