import { describe, expect, it } from 'vitest'
import { fromYoutubeChannel, youtubeChannelParts } from './mappers.js'
import type { YoutubeChannel } from './provider-types.js'

/** As `GET /youtube/v3/channels?part=snippet,statistics&mine=true` returns an item (providers.md 8.3). */
const CHANNEL: YoutubeChannel = {
  kind: 'youtube#channel',
  etag: 'x',
  id: 'UCabc123abc123abc123abc1',
  snippet: {
    title: 'Acme TV',
    description: '…',
    customUrl: '@acmetv',
    publishedAt: '2015-06-01T12:00:00Z',
    country: 'US',
  },
  statistics: {
    viewCount: '123456',
    subscriberCount: '4200',
    hiddenSubscriberCount: false,
    videoCount: '87',
  },
}

describe('fromYoutubeChannel', () => {
  it('maps a channel onto a property reporting in Pacific Time', () => {
    const p = fromYoutubeChannel(CHANNEL)
    expect(p).toMatchObject({ id: CHANNEL.id, name: 'Acme TV', timezone: 'America/Los_Angeles' })
    expect((p.created_at as Date).toISOString()).toBe('2015-06-01T12:00:00.000Z')
    expect(p.parent_id).toBeUndefined()
    expect(p.raw).toEqual(CHANNEL)
  })

  it('names the content owner as parent for a partner connection', () => {
    expect(fromYoutubeChannel(CHANNEL, 'acmecms').parent_id).toBe('acmecms')
  })
})

describe('youtubeChannelParts', () => {
  it('asks for the snippet, and for raw parts only when raw wants them', () => {
    expect(youtubeChannelParts(false, [])).toBe('snippet')
    expect(youtubeChannelParts(false, ['statistics', 'nope'])).toBe('snippet,statistics')
    expect(youtubeChannelParts(true, [])).toBe(
      'snippet,contentDetails,statistics,status,brandingSettings,topicDetails',
    )
  })
})
