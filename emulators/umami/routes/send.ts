import type { FastifyInstance } from 'fastify'
import { badRequest } from '../errors.js'
import { isUuidLike } from '../params.js'
import type { SessionRecord, UmamiState } from '../state.js'

/** What isbot-style filtering catches: crawler words or a URL in the User-Agent. */
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
 * `POST /api/send`: no credentials, a browser User-Agent, `{type, payload}` with the website's UUID.
 * Bot traffic is answered 200 `{beep: "boop"}` and not recorded.
 */
export function registerSendRoutes(app: FastifyInstance, state: UmamiState): void {
  app.post('/api/send', async (request) => {
    const ua = request.headers['user-agent']
    if (!ua) throw badRequest('Missing User-Agent.')
    const body = request.body as Record<string, unknown> | undefined
    if (!body || typeof body !== 'object') throw badRequest('Invalid request body.')
    if (body.type !== 'event' && body.type !== 'identify') {
      throw badRequest("type: Invalid enum value. Expected 'event' | 'identify'")
    }
    const payload = body.payload as Record<string, unknown> | undefined
    if (!payload || typeof payload !== 'object') throw badRequest('payload: Required')
    const website = str(payload, 'website')
    if (!website) throw badRequest('payload.website: Required')
    if (!isUuidLike(website)) throw badRequest('payload.website: Invalid uuid')
    const hostname = str(payload, 'hostname', 100)
    const url = str(payload, 'url', 500)
    const title = str(payload, 'title', 500)
    const referrer = str(payload, 'referrer', 500)
    const name = str(payload, 'name', 50)
    const tag = str(payload, 'tag', 50)
    const distinctId = str(payload, 'id', 50)
    const userAgent = str(payload, 'userAgent') ?? ua
    if (
      payload.data !== undefined &&
      (payload.data === null || typeof payload.data !== 'object' || Array.isArray(payload.data))
    ) {
      throw badRequest('payload.data: Expected object')
    }
    if (BOT.test(userAgent)) return { beep: 'boop' }
    const site = state.liveWebsite(website)
    if (!site) throw badRequest('Website not found.')
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
      urlPath: parsed.pathname,
      urlQuery: parsed.search ? parsed.search.slice(1) : null,
      referrerDomain: referrer
        ? new URL(referrer, 'https://x.invalid').hostname.replace('x.invalid', '') || null
        : null,
      pageTitle: title ?? null,
      eventType: name ? 2 : 1,
      eventName: name ?? null,
      hostname: hostname ?? site.domain ?? '',
      tag: tag ?? null,
      data: (payload.data as Record<string, unknown> | undefined) ?? null,
    })
    return { cache: 'emulator', sessionId: session.id, visitId }
  })
}

/** One session per website, User-Agent and distinct id, as Umami's salted hash would give. */
function sessionFor(
  state: UmamiState,
  websiteId: string,
  userAgent: string,
  distinctId: string | undefined,
  hostname: string,
): SessionRecord {
  const key = `${websiteId}|${userAgent}|${distinctId ?? ''}`
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
