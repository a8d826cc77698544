// The minimal gateway's work (bench/baselines/minimal-gateway.mjs for the unified list, undici-proxy.mjs
// for passthrough) on the stack Unigate is built on, with none of Unigate's own code: a Fastify route with
// a callback onRequest hook and a querystring schema, a pino logger at Unigate's bench level, and provider
// calls through an undici Agent (the kind of dispatcher Unigate's guarded agent is) by its dispatcher API.
// What Unigate costs above this row is its own code; what this row costs above the minimal gateway is the
// framework and the agent. UPSTREAM, UPSTREAM_PATH, UPSTREAM_BODY and UPSTREAM_AUTH as for the minimal
// gateway; PORT is where to listen.
import Fastify from 'fastify'
import { Agent } from 'undici'
import { eventPage } from './event-page.mjs'

const agent = new Agent({ connections: 1024, keepAliveTimeout: 10_000 })
const origin = process.env.UPSTREAM
const path = process.env.UPSTREAM_PATH
const body = process.env.UPSTREAM_BODY
const auth = process.env.UPSTREAM_AUTH
const headers = { authorization: auth, 'content-type': 'application/json' }
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host'])
const TIMEOUTS = { headersTimeout: 30_000, bodyTimeout: 30_000 }

const app = Fastify({ logger: { level: 'warn' } })
const checked = (_request, _reply, done) => done()

app.get('/analytics/:connection_id/event', {
  onRequest: checked,
  schema: {
    querystring: {
      type: 'object',
      properties: {
        limit: { type: 'integer' },
        fields: { type: 'string' },
        start_gte: { type: 'string' },
        end_lt: { type: 'string' },
      },
    },
  },
  handler: async (_request, reply) => {
    const answer = await agent.request({ origin, path, method: 'POST', headers, body, ...TIMEOUTS })
    const { results } = await answer.body.json()
    const page = eventPage(results)
    return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(page))
  },
})

app.get('/passthrough/:connection_id/*', {
  onRequest: checked,
  handler: async (request, reply) => {
    const target = request.raw.url.slice(request.raw.url.indexOf('/', '/passthrough/'.length))
    await agent.stream(
      {
        origin,
        path: target,
        method: 'GET',
        headers: { accept: request.headers.accept ?? '*/*', authorization: auth },
        ...TIMEOUTS,
      },
      ({ statusCode, headers: answered }) => {
        const out = {}
        for (const k in answered) if (!HOP.has(k)) out[k] = answered[k]
        reply.hijack()
        reply.raw.writeHead(statusCode, out)
        return reply.raw
      },
    )
  },
})

app.get('/health', (_request, reply) => reply.send('ok'))
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.once('SIGTERM', () => app.close().then(() => process.exit(0)))
