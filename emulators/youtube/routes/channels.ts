import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requireGrant } from '../../google/bearer.js'
import { GoogleApiError } from '../../google/errors.js'
import { decodePageToken, encodePageToken } from '../../google/page-tokens.js'
import type { EmulatedChannel } from '../data/seed.js'
import { badRequest } from '../report-query.js'
import { SCOPES, type YoutubeState } from '../state.js'

const PARTS = new Set([
  'id',
  'snippet',
  'contentDetails',
  'statistics',
  'status',
  'brandingSettings',
  'topicDetails',
  'localizations',
  'contentOwnerDetails',
])
const FILTERS = ['id', 'mine', 'managedByMe', 'forHandle', 'forUsername', 'categoryId'] as const

function etag(value: string): string {
  return Buffer.from(value).toString('base64url').slice(0, 27)
}

/** A channel resource with the parts asked for; counts in `statistics` are strings, as YouTube sends them. */
function resource(c: EmulatedChannel, parts: ReadonlySet<string>) {
  const out: Record<string, unknown> = {
    kind: 'youtube#channel',
    etag: etag(`${c.id}:${[...parts].join()}`),
    id: c.id,
  }
  if (parts.has('snippet')) {
    out.snippet = {
      title: c.title,
      description: `The ${c.title} channel.`,
      customUrl: c.customUrl,
      publishedAt: c.publishedAt,
      thumbnails: { default: { url: `https://yt3.example/${c.id}/88.jpg`, width: 88, height: 88 } },
      localized: { title: c.title, description: `The ${c.title} channel.` },
      country: c.country,
    }
  }
  if (parts.has('statistics')) {
    const views = 10_000 + ((c.number * 7919) % 90_000)
    out.statistics = {
      viewCount: String(views),
      subscriberCount: String(Math.round(views / 25)),
      hiddenSubscriberCount: false,
      videoCount: String(c.videos.length),
    }
  }
  if (parts.has('contentDetails'))
    out.contentDetails = { relatedPlaylists: { likes: '', uploads: `UU${c.id.slice(2)}` } }
  if (parts.has('status'))
    out.status = { privacyStatus: 'public', isLinked: true, longUploadsStatus: 'allowed', madeForKids: false }
  if (parts.has('brandingSettings'))
    out.brandingSettings = { channel: { title: c.title, country: c.country } }
  if (parts.has('topicDetails'))
    out.topicDetails = { topicCategories: ['https://en.wikipedia.org/wiki/Entertainment'] }
  if (parts.has('contentOwnerDetails'))
    out.contentOwnerDetails = c.contentOwner ? { contentOwner: c.contentOwner } : {}
  return out
}

/**
 * Data API v3 `channels.list`: `part` required; exactly one filter of id, mine, managedByMe, forHandle,
 * forUsername, categoryId; `maxResults` 0 to 50, default 5; page tokens (googleapis/google-api-go-client@
 * 8d21a5fa:youtube/v3/youtube-api.json, youtube.channels.list parameters;
 * https://developers.google.com/youtube/v3/docs/channels/list, including its errors). A channels.list call
 * costs 1 quota unit (https://developers.google.com/youtube/v3/determine_quota_cost). `statistics` counts
 * are strings (uint64 in the discovery document's Channel schema).
 */
export function registerChannelRoutes(app: FastifyInstance, state: YoutubeState): void {
  app.get('/youtube/v3/channels', async (request: FastifyRequest) => {
    const q = request.query as Record<string, string | undefined>
    const grant = requireGrant(state.bearer('youtube.googleapis.com'), request, SCOPES.youtubeRead)
    if (!q.part) throw badRequest('Required parameter: part', 'required')
    const parts = new Set(q.part.split(',').map((p) => p.trim()))
    for (const p of parts) if (!PARTS.has(p)) throw badRequest(`'${p}'`, 'unknownPart')
    const given = FILTERS.filter((f) => q[f] !== undefined)
    if (given.length === 0) {
      throw badRequest(
        'No filter selected. Expected one of: forUsername, managedByMe, categoryId, mine, mySubscribers, id, idParam, forHandle',
        'missingRequiredParameter',
      )
    }
    if (given.length > 1)
      throw badRequest(
        `Incompatible parameters specified in the request: ${given.join(', ')}`,
        'incompatibleParameters',
      )
    const maxResults = q.maxResults === undefined ? 5 : Number(q.maxResults)
    if (!Number.isInteger(maxResults) || maxResults < 0 || maxResults > 50) {
      throw badRequest(
        `Invalid value '${q.maxResults}'. Values must be within the range: [0, 50]`,
        'invalidParameter',
      )
    }
    const owner = q.onBehalfOfContentOwner
    if (owner !== undefined) {
      requireGrant(state.bearer('youtube.googleapis.com'), request, SCOPES.partner)
      if (state.seed.contentOwner.id !== owner || !state.seed.contentOwner.users.includes(grant.subject)) {
        throw new GoogleApiError(
          403,
          'The authenticated user cannot act on behalf of the specified Google Apps domain.',
          {
            errors: [{ message: 'Forbidden', domain: 'youtube.common', reason: 'forbidden' }],
          },
        )
      }
    }
    let channels: EmulatedChannel[]
    if (q.mine !== undefined) {
      channels = state.seed.channels.filter((c) => c.owner === grant.subject)
    } else if (q.managedByMe !== undefined) {
      if (!owner)
        throw badRequest(
          'The request uses the managedByMe parameter without onBehalfOfContentOwner.',
          'invalidCriteria',
        )
      channels = state.seed.channels.filter((c) => c.contentOwner === owner)
    } else if (q.id !== undefined) {
      const ids = q.id.split(',')
      channels = state.seed.channels.filter((c) => ids.includes(c.id))
    } else if (q.forHandle !== undefined) {
      const handle = q.forHandle.startsWith('@') ? q.forHandle : `@${q.forHandle}`
      channels = state.seed.channels.filter((c) => c.customUrl === handle.toLowerCase())
    } else {
      channels = []
    }
    state.chargeData(1)
    const listing = `channels:${given[0]}:${q[given[0] as string]}:${owner ?? ''}`
    const offset = decodePageToken(q.pageToken, listing)
    const page = channels.slice(offset, offset + maxResults)
    const next =
      offset + maxResults < channels.length ? encodePageToken(listing, offset + maxResults) : undefined
    const prev = offset > 0 ? encodePageToken(listing, Math.max(0, offset - maxResults)) : undefined
    return {
      kind: 'youtube#channelListResponse',
      etag: etag(`${listing}:${offset}`),
      ...(next ? { nextPageToken: next } : {}),
      ...(prev ? { prevPageToken: prev } : {}),
      pageInfo: { totalResults: channels.length, resultsPerPage: maxResults },
      items: page.map((c) => resource(c, parts)),
    }
  })
}
