// The least a Node gateway can do for the unified CRM contact list: the same HubSpot request through an
// undici pool, parse the answer, map the five fields asked for, stringify. UPSTREAM, UPSTREAM_PATH and
// UPSTREAM_AUTH describe the provider request; PORT is where to listen.
import { createServer } from 'node:http'
import { Pool } from 'undici'

const pool = new Pool(process.env.UPSTREAM, { connections: 64 })
const path = process.env.UPSTREAM_PATH
const headers = { authorization: process.env.UPSTREAM_AUTH, accept: 'application/json' }
const text = (v) => (typeof v === 'string' && v.trim() !== '' ? v : undefined)

const server = createServer(async (req, res) => {
  if (req.url === '/health') return res.writeHead(200).end('ok')
  try {
    const answer = await pool.request({ path, method: 'GET', headers })
    const { results } = await answer.body.json()
    const page = results.map((c) => {
      const p = c.properties ?? {}
      return {
        id: String(c.id),
        created_at: new Date(c.createdAt).toISOString(),
        first_name: text(p.firstname),
        last_name: text(p.lastname),
        emails: text(p.email) ? [{ email: p.email }] : [],
      }
    })
    const body = JSON.stringify(page)
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    })
    res.end(body)
  } catch (err) {
    res.writeHead(502).end(String(err))
  }
})
server.keepAliveTimeout = 60_000
server.listen(Number(process.env.PORT), '127.0.0.1')
process.once('SIGTERM', () => server.close(() => process.exit(0)))
