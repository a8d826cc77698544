// A bare streaming proxy: every request forwarded through an undici pool to UPSTREAM with UPSTREAM_AUTH,
// hop-by-hop headers dropped, the answer streamed straight into the reply. PORT is where to listen.
import { createServer } from 'node:http'
import { Pool } from 'undici'

const pool = new Pool(process.env.UPSTREAM, { connections: 64 })
const auth = process.env.UPSTREAM_AUTH
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host'])

const server = createServer((req, res) => {
  if (req.url === '/health') return res.writeHead(200).end('ok')
  pool.stream(
    {
      path: req.url,
      method: req.method,
      headers: { accept: req.headers.accept ?? '*/*', authorization: auth },
    },
    ({ statusCode, headers }) => {
      const out = {}
      for (const k in headers) if (!HOP.has(k)) out[k] = headers[k]
      res.writeHead(statusCode, out)
      return res
    },
    (err) => {
      if (err && !res.headersSent) res.writeHead(502).end(String(err))
    },
  )
})
server.keepAliveTimeout = 60_000
server.listen(Number(process.env.PORT), '127.0.0.1')
process.once('SIGTERM', () => server.close(() => process.exit(0)))
