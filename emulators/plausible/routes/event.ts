import { createHash } from 'node:crypto'
import { isIP } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PlausibleState } from '../state.js'

const BOT = /bot|crawl|spider|slurp|curl|wget|python-requests|headless/i

/**
 * Plausible's ingestion validation errors: `{"errors": {"field": ["message"]}}` with 400
 * (plausible/analytics:lib/plausible_web/controllers/api/external_controller.ex, traverse_errors).
 */
function invalid(reply: FastifyReply, field: string, message: string) {
  return reply.code(400).send({ errors: { [field]: [message] } })
}

/**
 * 202 with the text `ok`, and `x-plausible-dropped: <count>` when the event was not counted
 * (plausible/analytics:lib/plausible_web/controllers/api/external_controller.ex event/2).
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
 * `POST /api/event`: no credentials; `name` and `url` required, `domain` defaults to the URL's host;
 * 202 `ok` whether counted or not, with `x-plausible-dropped: 1` when it was not (unknown site, bot,
 * data-centre address) (https://plausible.io/docs/events-api).
 */
export function registerEventRoutes(app: FastifyInstance, state: PlausibleState): void {
  app.post('/api/event', async (request, reply) => {
    // Request validation as Plausible's ingestion does it
    // (plausible/analytics@69e5af5d:lib/plausible/ingestion/request.ex build/2).
    const body = request.body as Record<string, unknown> | undefined
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return invalid(reply, 'request', 'Unable to parse request body as json')
    const rawUrl = body.url ?? body.u
    if (rawUrl === undefined || rawUrl === null) return invalid(reply, 'url', 'is required')
    let url: URL
    try {
      if (typeof rawUrl !== 'string' || rawUrl.length > 2000) throw new Error('bad url')
      url = new URL(rawUrl, 'http://(none)')
    } catch {
      return invalid(reply, 'url', 'must be a valid url')
    }
    if (url.protocol === 'data:') return invalid(reply, 'url', 'scheme is not allowed')
    const name = body.name ?? body.n
    if (typeof name === 'number' && Number.isInteger(name)) body.name = String(name)
    else if (typeof name !== 'string' || name === '') return invalid(reply, 'event_name', "can't be blank")
    else body.name = name
    if ((body.name as string).length > 120)
      return invalid(reply, 'event_name', 'should be at most 120 character(s)')
    // No domain: the URL's host, without www.
    const rawDomain = body.domain ?? body.d
    if (typeof rawDomain === 'string' && rawDomain.trim() === '')
      return invalid(reply, 'domain', "can't be blank")
    body.domain = typeof rawDomain === 'string' ? rawDomain.trim() : url.hostname.replace(/^www\./, '')
    if (!body.domain) return invalid(reply, 'domain', "can't be blank")
    // Props: list or map values and blank keys/values are dropped, only the first 30 kept, silently;
    // a key over 300 bytes or a value over 2000 bytes is refused.
    const props = body.props ?? body.p ?? body.meta ?? body.m
    let storedProps: Record<string, string> | undefined
    if (props && typeof props === 'object' && !Array.isArray(props)) {
      const kept = Object.entries(props as Record<string, unknown>)
        .filter(([k, v]) => v !== null && typeof v !== 'object' && String(v).trim() !== '' && k.trim() !== '')
        .slice(0, 30)
      if (kept.some(([k, v]) => Buffer.byteLength(k) > 300 || Buffer.byteLength(String(v)) > 2000)) {
        return invalid(reply, 'props', 'keys should have at most 300 bytes and values 2000 bytes')
      }
      if (kept.length > 0) storedProps = Object.fromEntries(kept.map(([k, v]) => [k, String(v)]))
    }
    // Revenue `{amount, currency}` with a known currency and a decimal amount is kept; anything else is
    // ignored, not refused (plausible/analytics extra/lib/plausible/ingestion/request/revenue.ex).
    const rawRevenue = (body.revenue ?? body.$) as { currency?: unknown; amount?: unknown } | undefined
    const amount = Number(rawRevenue?.amount)
    const revenue =
      rawRevenue &&
      typeof rawRevenue === 'object' &&
      typeof rawRevenue.currency === 'string' &&
      /^[A-Z]{3}$/.test(rawRevenue.currency) &&
      (typeof rawRevenue.amount === 'number' || typeof rawRevenue.amount === 'string') &&
      Number.isFinite(amount)
        ? { currency: rawRevenue.currency, amount }
        : undefined
    const ua = request.headers['user-agent']
    if (!ua || BOT.test(ua)) return dropped(reply)
    // Events from data-centre addresses are dropped (ingestion pipeline step drop_datacenter_ip,
    // plausible/analytics:lib/plausible/ingestion/event.ex). Sent from a server without
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
            ...(revenue ? { revenue } : {}),
            ...(storedProps ? { props: storedProps } : {}),
          },
        ],
      })
    }
    return reply.code(202).type('text/plain; charset=utf-8').send('ok')
  })
}
