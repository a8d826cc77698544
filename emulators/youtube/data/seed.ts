import { hash32, SeededRandom } from '../../kit/index.js'

/**
 * The YouTube world an emulator starts with: the signed-in user's channel and a content owner's channels,
 * with ids shaped as YouTube's (`UC` and 22 characters); titles and counts are made up.
 */

export interface YoutubeSeedOptions {
  readonly seed?: number
  /** Channels the content owner manages (besides the user's own channel). */
  readonly managedChannels?: number
  readonly videosPerChannel?: number
}

export interface EmulatedChannel {
  readonly id: string
  readonly title: string
  readonly customUrl: string
  readonly publishedAt: string
  readonly country: string
  readonly videos: readonly string[]
  /** Google account that owns the channel (token subject). */
  readonly owner?: string
  /** Content owner managing it. */
  readonly contentOwner?: string
  readonly number: number
}

export interface EmulatedContentOwner {
  readonly id: string
  readonly users: readonly string[]
}

export interface YoutubeSeed {
  readonly channels: EmulatedChannel[]
  readonly contentOwner: EmulatedContentOwner
}

/** The token subject the emulator's default user has (GoogleTokenAuthority's default subject). */
export const DEFAULT_SUBJECT = 'user-1'
export const DEFAULT_CONTENT_OWNER = 'acmecms'
const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const NAMES = ['Acme TV', 'Globex Gaming', 'Initech Talks', 'Umbrella Labs', 'Hooli Music', 'Stark Garage']

function idOf(random: SeededRandom, prefix: string, length: number): string {
  let s = prefix
  while (s.length < length) s += random.pick([...ID_CHARS])
  return s
}

export function seedYoutube(options: YoutubeSeedOptions = {}): YoutubeSeed {
  const seed = options.seed ?? 1
  const managed = options.managedChannels ?? 3
  const videos = options.videosPerChannel ?? 12
  const channels: EmulatedChannel[] = []
  for (let i = 0; i <= managed; i++) {
    const random = new SeededRandom(hash32(seed, 0x7b, i))
    const title = `${NAMES[i % NAMES.length]}${i >= NAMES.length ? ` ${Math.floor(i / NAMES.length) + 1}` : ''}`
    channels.push({
      id: idOf(random, 'UC', 24),
      title,
      customUrl: `@${title.toLowerCase().replace(/\s+/g, '')}`,
      publishedAt: new Date(
        Date.UTC(2015, 5, 1) + i * 86_400_000 * 37 + random.int(0, 86_399) * 1000,
      ).toISOString(),
      country: random.pick(['US', 'FR', 'GB', 'JP']),
      videos: Array.from({ length: videos }, () => idOf(random, '', 11)),
      number: i,
      // The first channel is the signed-in user's own; the others are the content owner's.
      ...(i === 0 ? { owner: DEFAULT_SUBJECT } : { contentOwner: DEFAULT_CONTENT_OWNER }),
    })
  }
  return { channels, contentOwner: { id: DEFAULT_CONTENT_OWNER, users: [DEFAULT_SUBJECT] } }
}
