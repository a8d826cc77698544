import { hash32, SeededRandom } from '../../kit/index.js'
import type { EmulatedChannel } from './seed.js'

/**
 * A channel's day is a handful of facts: a combination of dimension values with additive counts drawn
 * from the seed, so a day always holds the same numbers and breakdowns add up to the totals. Dimension
 * values use YouTube's forms (country ISO 3166-1, continent codes, deviceType and operatingSystem
 * upper-case enums, insightTrafficSourceType enums: https://developers.google.com/youtube/analytics/dimensions);
 * the numbers are made up.
 */

export interface Fact {
  readonly dims: Readonly<Record<string, string>>
  readonly counts: Readonly<Record<string, number>>
}

/**
 * `continent` values are UN M.49 region codes (the dimensions page filters Europe as `continent==150`):
 * 019 Americas, 150 Europe, 142 Asia.
 */
const PLACES = [
  ['US', 'New York', '019'],
  ['US', 'Los Angeles', '019'],
  ['FR', 'Paris', '150'],
  ['DE', 'Berlin', '150'],
  ['JP', 'Tokyo', '142'],
  ['BR', 'São Paulo', '019'],
] as const
const DEVICES = [
  ['DESKTOP', 'WINDOWS'],
  ['DESKTOP', 'MACINTOSH'],
  ['MOBILE', 'ANDROID'],
  ['MOBILE', 'IOS'],
  ['TV', 'SMART_TV'],
  ['TABLET', 'IOS'],
] as const
const SOURCES = ['YT_SEARCH', 'SUGGESTED_VIDEO', 'BROWSE', 'EXT_URL', 'SUBSCRIBER', 'PLAYLIST'] as const

export function factsFor(seed: number, channel: EmulatedChannel, day: string, perDay: number): Fact[] {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number]
  const random = new SeededRandom(
    hash32(seed, 0x7e, channel.number, Math.floor(Date.UTC(y, m - 1, d) / 86_400_000)),
  )
  const out: Fact[] = []
  for (let i = 0; i < perDay; i++) {
    const [country, city, continent] = random.pick(PLACES)
    const [deviceType, operatingSystem] = random.pick(DEVICES)
    const views = random.int(5, 900)
    const seconds = views * random.int(20, 400)
    out.push({
      dims: {
        day,
        month: day.slice(0, 7),
        country,
        city,
        continent,
        deviceType,
        operatingSystem,
        insightTrafficSourceType: random.pick(SOURCES),
        video: channel.videos.length > 0 ? random.pick(channel.videos) : '',
        channel: channel.id,
      },
      counts: {
        views,
        watchSeconds: seconds,
        viewPercentSum: views * random.int(15, 85),
        likes: random.int(0, Math.ceil(views / 10)),
        dislikes: random.int(0, Math.ceil(views / 100)),
        comments: random.int(0, Math.ceil(views / 50)),
        shares: random.int(0, Math.ceil(views / 80)),
        subscribersGained: random.int(0, Math.ceil(views / 60)),
        subscribersLost: random.int(0, Math.ceil(views / 300)),
        revenueCents: random.int(0, views * 2),
      },
    })
  }
  return out
}
