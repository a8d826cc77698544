// The least a Node gateway can do for the unified event list: the same provider request through an undici
// pool, parse the answer, map the four fields asked for, stringify. UPSTREAM, UPSTREAM_PATH, UPSTREAM_BODY
// and UPSTREAM_AUTH describe the provider request; PORT is where to listen. UPSTREAM_CONNECTIONS (default 64)
// caps the requests in flight to the provider: 3 is PostHog's limit of concurrent queries per team, which
// Unigate keeps (src/integrations/posthog/query-slots.ts) and the uncapped baseline does not.
import { createServer } from 'node:http'
import { Pool } from 'undici'
import { eventPage } from './event-page.mjs'

const pool = new Pool(process.env.UPSTREAM, { connections: Number(process.env.UPSTREAM_CONNECTIONS ?? 64) })
const path = process.env.UPSTREAM_PATH
const body = process.env.UPSTREAM_BODY
const headers = { authorization: process.env.UPSTREAM_AUTH, 'content-type': 'application/json' }

const server = createServer(async (req, res) => {
  if (req.url === '/health') return res.writeHead(200).end('ok')
  try {
    const answer = await pool.request({ path, method: 'POST', headers, body })
    const { results } = await answer.body.json()
    const page = eventPage(results)
    const text = JSON.stringify(page)
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    })
    res.end(text)
  } catch (err) {
    res.writeHead(502).end(String(err))
  }
})
server.keepAliveTimeout = 60_000
server.listen(Number(process.env.PORT), '127.0.0.1')
process.once('SIGTERM', () => server.close(() => process.exit(0)))
