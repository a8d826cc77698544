import { notFound } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { withGoogleQuota } from '../google/errors.js'
import { readTokenWindow } from '../google/token-pages.js'
import type { HandlerContext, ListQuery, ObjectHandlers } from '../types.js'
import { youtubeDataBase } from './hosts.js'
import { fromYoutubeChannel, youtubeChannelParts } from './mappers.js'
import type { YoutubeChannel, YoutubeChannelList } from './provider-types.js'

/** channels.list's largest page; kept fixed so remembered page tokens stay valid. */
const CHANNEL_PAGE_SIZE = 50

/** Whose channels the connection sees: the token's own (`mine`), or a content owner's (`managedByMe`). */
export function channelScope(ctx: HandlerContext): Record<string, string> {
  const owner = ctx.credentials.content_owner_id
  return owner ? { managedByMe: 'true', onBehalfOfContentOwner: owner } : { mine: 'true' }
}

function channels(ctx: HandlerContext, query: Record<string, string | number | undefined>) {
  return withGoogleQuota(() =>
    ctx.client.json<YoutubeChannelList>({
      baseUrl: youtubeDataBase(ctx.credentials),
      path: '/youtube/v3/channels',
      query: { ...ctx.rawParams, part: youtubeChannelParts(ctx.fields.raw, ctx.fields.rawNames), ...query },
    }),
  )
}

async function listChannels(ctx: HandlerContext, query: ListQuery): Promise<UnifiedRecord[]> {
  const scope = channelScope(ctx)
  const part = youtubeChannelParts(ctx.fields.raw, ctx.fields.rawNames)
  const rows = await readTokenWindow<YoutubeChannel>({
    cursors: ctx.cursors,
    scope: `${ctx.connectionId}:youtube:channels:${part}:${new URLSearchParams(ctx.rawParams)}`,
    offset: query.offset,
    limit: query.limit,
    fetchPage: async (pageToken) => {
      const res = await channels(ctx, { ...scope, maxResults: CHANNEL_PAGE_SIZE, pageToken })
      return { items: res.items ?? [], nextPageToken: res.nextPageToken }
    },
  })
  return rows.map((c) => fromYoutubeChannel(c, ctx.credentials.content_owner_id))
}

/** channels.list by id answers 200 with no items for an unknown channel: that is a 404 here. */
async function getChannel(ctx: HandlerContext, id: string): Promise<UnifiedRecord> {
  const owner = ctx.credentials.content_owner_id
  const res = await channels(ctx, { id, ...(owner ? { onBehalfOfContentOwner: owner } : {}) })
  const channel = res.items?.find((c) => c.id === id)
  if (!channel) throw notFound(`YouTube channel ${id} not found`)
  return fromYoutubeChannel(channel, owner)
}

export const youtubeChannels: ObjectHandlers = {
  list: listChannels,
  get: getChannel,
  listParams: [],
  filters: [],
  rawOwned: {
    pageToken: 'Unigate pages with limit and offset',
    maxResults: 'Unigate pages with limit and offset',
    part: 'use fields (raw and raw.<name> ask for the parts they need)',
  },
}
