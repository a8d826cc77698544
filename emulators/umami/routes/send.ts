import type { FastifyInstance } from 'fastify'
import { badRequest, UmamiHttpError } from '../errors.js'
import { isUuidLike } from '../params.js'
import type { SessionRecord, UmamiState } from '../state.js'

/**
 * A small stand-in for the `isbot` package Umami runs on the User-Agent (umami-software/umami@v3.1.0:
 * src/app/api/send/route.ts, `isbot` ^5.1.37 in package.json): crawler words or a URL. isbot's own list
 * is far longer; an empty User-Agent is not a bot there.
 */
const BOT = /bot|crawl|spider|slurp|curl|wget|python-requests|https?:\/\//i

function str(payload: Record<string, unknown>, name: string, max?: number): string | undefined {
  const v = payload[name]
  if (v === undefined) return undefined
  if (typeof v !== 'string') throw badRequest(`payload.${name}: Expected string, received ${typeof v}`)
  if (max !== undefined && v.length > max)
    throw badRequest(`payload.${name}: String must contain at most ${max} character(s)`)
  return v
}

/**
 * Column sizes: longer url parts and titles are cut when stored (umami-software/umami@v3.1.0:
 * src/lib/constants.ts `URL_LENGTH`, `PAGE_TITLE_LENGTH`; src/queries/sql/events/saveEvent.ts).
 */
const URL_LENGTH = 500
const PAGE_TITLE_LENGTH = 500
/**
 * `session.distinct_id` is VARCHAR(50) (umami-software/umami@v3.1.0:prisma/schema.prisma): a longer id
 * fails the insert, which the route answers 500.
 */
const DISTINCT_ID_LENGTH = 50

const cut = (value: string | null, max: number) => (value === null ? null : value.slice(0, max))

/**
 * `POST /api/send`: no credentials, `{type, payload}` with the website's UUID. The User-Agent is read from
 * `payload.userAgent`, else the header; none is not refused (src/lib/detect.ts `getClientInfo`). The
 * schema caps hostname (100), name and tag (50) but not url, referrer, title or id; an unknown website is
 * 400 before the bot check; bot traffic is answered 200 `{beep: "boop"}` and not recorded. Source:
 * umami-software/umami@v3.1.0:src/app/api/send/route.ts.
 */
export function registerSendRoutes(app: FastifyInstance, state: UmamiState): void {
  app.post('/api/send', async (request) => {
    const ua = request.headers['user-agent'] ?? ''
    const body = request.body as Record<string, unknown> | undefined
    if (!body || typeof body !== 'object') throw badRequest('Invalid request body.')
    // `performance` beacons (web vitals, the tracker's opt-in `data-performance`) are stored as events of
    // type 5 in the same table, so they come back in the website's event list (route.ts, EVENT_TYPE in
    // src/lib/constants.ts).
    if (body.type !== 'event' && body.type !== 'identify' && body.type !== 'performance') {
      throw badRequest("type: Invalid enum value. Expected 'event' | 'identify' | 'performance'")
    }
    const payload = body.payload as Record<string, unknown> | undefined
    if (!payload || typeof payload !== 'object') throw badRequest('payload: Required')
    const website = str(payload, 'website')
    if (!website) throw badRequest('payload.website: Required')
    if (!isUuidLike(website)) throw badRequest('payload.website: Invalid uuid')
    const hostname = str(payload, 'hostname', 100)
    const url = str(payload, 'url')
    const title = str(payload, 'title')
    const referrer = str(payload, 'referrer')
    const name = str(payload, 'name', 50)
    const tag = str(payload, 'tag', 50)
    const distinctId = str(payload, 'id')
    const userAgent = str(payload, 'userAgent') ?? ua
    if (
      payload.data !== undefined &&
      (payload.data === null || typeof payload.data !== 'object' || Array.isArray(payload.data))
    ) {
      throw badRequest('payload.data: Expected object')
    }
    const site = state.liveWebsite(website)
    if (!site) throw badRequest('Website not found.')
    if (BOT.test(userAgent)) return { beep: 'boop' }
    if (distinctId !== undefined && distinctId.length > DISTINCT_ID_LENGTH) {
      throw new UmamiHttpError(500, 'Server error')
    }
    const session = sessionFor(state, website, userAgent, distinctId, hostname ?? site.domain ?? '')
    if (body.type === 'identify') {
      session.distinctId = distinctId ?? session.distinctId
      return { cache: 'emulator', sessionId: session.id, visitId: session.id }
    }
    const parsed = new URL(url ?? '/', `https://${hostname ?? site.domain ?? 'localhost'}`)
    const visitId = `${session.id.slice(0, 24)}${'0'.repeat(12)}`
    state.events.push({
      id: state.newId(),
      websiteId: website,
      sessionId: session.id,
      visitId,
      createdAt: Date.now(),
      urlPath: cut(parsed.pathname, URL_LENGTH) as string,
      urlQuery: cut(parsed.search ? parsed.search.slice(1) : null, URL_LENGTH),
      // The referrer's host without `www.` (src/app/api/send/route.ts); a bare path has the site's own host.
      referrerDomain: referrer
        ? new URL(referrer, `https://${hostname ?? site.domain ?? 'localhost'}`).hostname.replace(
            /^www\./,
            '',
          ) || null
        : null,
      pageTitle: cut(title ?? null, PAGE_TITLE_LENGTH),
      eventType: body.type === 'performance' ? 5 : name ? 2 : 1,
      eventName: body.type === 'performance' ? null : (name ?? null),
      hostname: hostname ?? site.domain ?? '',
      tag: tag ?? null,
      data: (payload.data as Record<string, unknown> | undefined) ?? null,
    })
    return { cache: 'emulator', sessionId: session.id, visitId }
  })
}

/**
 * One session per website and distinct id when one is given (`uuid(website, id)`), else per website and
 * client (`uuid(website, ip, userAgent, salt)`): src/app/api/send/route.ts.
 */
function sessionFor(
  state: UmamiState,
  websiteId: string,
  userAgent: string,
  distinctId: string | undefined,
  hostname: string,
): SessionRecord {
  const key = distinctId !== undefined ? `${websiteId}|id|${distinctId}` : `${websiteId}|ua|${userAgent}`
  const known = state.sessions.get(state.sessionKeys.get(key) ?? '')
  if (known) return known
  const session: SessionRecord = {
    id: state.newId(),
    websiteId,
    hostname,
    browser: 'chrome',
    os: 'Linux',
    device: 'desktop',
    screen: '1920x1080',
    language: 'en-US',
    country: 'US',
    region: 'US-CA',
    city: 'San Francisco',
    distinctId: distinctId ?? null,
    createdAt: Date.now(),
  }
  state.sessions.set(session.id, session)
  state.sessionKeys.set(key, session.id)
  return session
}
