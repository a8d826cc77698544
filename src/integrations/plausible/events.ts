import { randomUUID } from 'node:crypto'
import { isIP } from 'node:net'
import { ApiError, badRequest } from '../../errors.js'
import type { ObjectHandlers, WriteBody } from '../types.js'
import { fromPlausibleEventSent, toPlausibleEvent } from './mappers.js'

/** Sent when the caller gives no visitor User-Agent; Plausible needs one to count an event. */
const EVENT_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) Unigate/0.1'

/**
 * The visitor's IP and User-Agent, which Plausible hashes into its visitor id
 * (https://plausible.io/docs/events-api "Unique visitor tracking"). They travel as `raw.ip` and
 * `raw.user_agent` and leave the event body. Without an IP, Plausible would see Unigate's server: a
 * data-centre address it drops (lib/plausible/ingestion/event.ex drop_datacenter_ip), and one address
 * for every visitor; so the IP is required.
 */
function visitorHeaders(body: WriteBody): { headers: Record<string, string>; rest: WriteBody } {
  const raw = { ...((body.raw ?? {}) as Record<string, unknown>) }
  const ip = raw.ip
  const ua = raw.user_agent
  delete raw.ip
  delete raw.user_agent
  if (typeof ip !== 'string' || isIP(ip.trim()) === 0) {
    throw badRequest(
      "Plausible counts visitors by IP and User-Agent: give the visitor's IP address in raw.ip (and their browser's User-Agent in raw.user_agent); without it Plausible drops the event as coming from a data centre",
    )
  }
  if (ua !== undefined && (typeof ua !== 'string' || ua.trim() === '')) {
    throw badRequest("raw.user_agent: give the visitor's User-Agent header as a non-empty string")
  }
  return {
    headers: { 'x-forwarded-for': ip.trim(), 'user-agent': typeof ua === 'string' ? ua : EVENT_USER_AGENT },
    rest: { ...body, raw },
  }
}

/**
 * Plausible keeps no event rows anyone can read back (privacy by design): events can be recorded, never
 * listed or read. `/api/event` answers 202 without an id and has no de-duplication key, so the id is ours.
 */
export const eventHandlers: ObjectHandlers = {
  listParams: [],
  filters: [],

  async create(ctx, body) {
    const { headers, rest } = visitorHeaders(body)
    const sent = toPlausibleEvent(rest)
    const res = await ctx.client.send({ method: 'POST', path: '/api/event', body: sent, headers })
    // `x-plausible-dropped: <count>` marks events that were not counted
    // (lib/plausible_web/controllers/api/external_controller.ex).
    const dropped = String(res.headers['x-plausible-dropped'] ?? '0')
    if (dropped !== '0' && dropped !== '') {
      throw new ApiError(
        502,
        `Plausible dropped the event (x-plausible-dropped: ${dropped}): check that site '${sent.domain}' exists, the URL is on it, and raw.ip/raw.user_agent are the visitor's, not a server's or a bot's`,
      )
    }
    return fromPlausibleEventSent(randomUUID(), rest, sent, new Date())
  },
}
