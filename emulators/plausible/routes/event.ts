import { createHash } from 'node:crypto'
import { isIP } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PlausibleState } from '../state.js'

const BOT = /bot|crawl|spider|slurp|curl|wget|python-requests|headless/i

/** Plausible's ingestion validation errors: `{"errors": {"field": ["message"]}}` with 400. */
function invalid(reply: FastifyReply, field: string, message: string) {
  return reply.code(400).send({ errors: { [field]: [message] } })
}

/**
 * 202 with the text `ok`, and `x-plausible-dropped: <count>` when the event was not counted
 * (plausible/analytics lib/plausible_web/controllers/api/external_controller.ex event/2).
 */
function dropped(reply: FastifyReply) {
  return reply.code(202).header('x-plausible-dropped', '1').type('text/plain; charset=utf-8').send('ok')
}

/**
 * The visitor's IP: the first valid address of X-Forwarded-For, else the sender's own address
 * (https://plausible.io/docs/events-api "Request headers"; lib/plausible/ingestion/request.ex remote_ip).
 */
function visitorIp(request: FastifyRequest): { ip: string; forwarded: boolean } {
  const header = request.headers['x-forwarded-for']
  const list = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((s) => s.trim())
  const first = list.find((ip) => isIP(ip) !== 0)
  return first ? { ip: first, forwarded: true } : { ip: request.ip, forwarded: false }
}

/**
 * `POST /api/event`: no credentials; `domain`, `name` and `url` required; 202 `{}` whether counted or not,
 * with `x-plausible-dropped: 1` when it was not (unknown site, bot).
 */
export function registerEventRoutes(app: FastifyInstance, state: PlausibleState): void {
  app.post('/api/event', async (request, reply) => {
    const body = request.body as Record<string, unknown> | undefined
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return invalid(reply, 'request', 'is invalid')
    for (const field of ['domain', 'name', 'url'] as const) {
      if (typeof body[field] !== 'string' || body[field] === '')
        return invalid(reply, field, "can't be blank")
    }
    let url: URL
    try {
      url = new URL(body.url as string)
    } catch {
      return invalid(reply, 'url', 'is not a valid url')
    }
    if ((body.name as string).length > 120)
      return invalid(reply, 'name', 'should be at most 120 character(s)')
    const props = body.props
    if (props !== undefined) {
      if (!props || typeof props !== 'object' || Array.isArray(props))
        return invalid(reply, 'props', 'is invalid')
      const entries = Object.entries(props)
      if (entries.length > 30) return invalid(reply, 'props', 'should have at most 30 item(s)')
      if (entries.some(([, v]) => v !== null && typeof v === 'object')) {
        return invalid(reply, 'props', 'is invalid: values must be strings, numbers or booleans')
      }
    }
    const revenue = body.revenue as { currency?: unknown; amount?: unknown } | undefined
    if (revenue !== undefined) {
      if (
        typeof revenue !== 'object' ||
        typeof revenue?.currency !== 'string' ||
        !/^[A-Z]{3}$/.test(revenue.currency)
      ) {
        return invalid(reply, 'revenue', 'currency must be an ISO 4217 code')
      }
      if (typeof revenue.amount !== 'number' && typeof revenue.amount !== 'string') {
        return invalid(reply, 'revenue', 'amount is required')
      }
    }
    const ua = request.headers['user-agent']
    if (!ua || BOT.test(ua)) return dropped(reply)
    // Events from data-centre addresses are dropped (ingestion pipeline step drop_datacenter_ip,
    // plausible/analytics lib/plausible/ingestion/event.ex). Sent from a server without
    // X-Forwarded-For, the address Plausible sees is the server's own.
    const { ip, forwarded } = visitorIp(request)
    if (!forwarded && state.options.senderInDataCentre) return dropped(reply)
    const domains = (body.domain as string).split(',')
    const known = domains.filter((d) => state.sites.has(d))
    if (known.length === 0) return dropped(reply)
    const now = Date.now()
    for (const domain of known) {
      // The visitor is a hash of site, IP and User-Agent (daily salt aside), so one IP and one
      // User-Agent for every event make one visitor
      // (https://plausible.io/data-policy#how-we-count-unique-users-without-cookies).
      const visitorId = createHash('sha256').update(`${domain}|${ip}|${ua}`).digest('hex').slice(0, 16)
      state.visits.get(domain)?.push({
        visitorId,
        start: now,
        end: now,
        entryPage: url.pathname,
        exitPage: url.pathname,
        source: url.searchParams.get('utm_source') ? 'Newsletter' : 'Direct / None',
        referrer: typeof body.referrer === 'string' ? body.referrer : '',
        utmMedium: url.searchParams.get('utm_medium') ?? '',
        utmSource: url.searchParams.get('utm_source') ?? '',
        utmCampaign: url.searchParams.get('utm_campaign') ?? '',
        device: 'Desktop',
        browser: 'Chrome',
        os: 'Linux',
        country: 'EE',
        countryName: 'Estonia',
        region: 'EE-37',
        regionName: 'Harjumaa',
        city: '588409',
        cityName: 'Tallinn',
        events: [
          {
            name: body.name as string,
            at: now,
            page: url.pathname,
            ...(revenue
              ? { revenue: { currency: revenue.currency as string, amount: Number(revenue.amount) } }
              : {}),
          },
        ],
      })
    }
    return reply.code(202).type('text/plain; charset=utf-8').send('ok')
  })
}
