// The provider, replaced by the bytes it answered once: every recorded request (method, path and query,
// body) is answered with its recorded status, content type and body, at no cost of the provider's own.
// RECORDINGS names a JSON file written by bench/replay.ts; PORT is where to listen, on each address of HOSTS
// (comma-separated, 127.0.0.1 by default): every address answers the same recordings.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const answers = new Map()
for (const r of JSON.parse(readFileSync(process.env.RECORDINGS, 'utf8'))) {
  answers.set(`${r.method} ${r.url} ${r.body}`, {
    status: r.status,
    headers: {
      'content-type': r.contentType,
      'content-length': String(Buffer.byteLength(r.answer, 'base64')),
    },
    body: Buffer.from(r.answer, 'base64'),
  })
}

const answer = (req, res) => {
  if (req.url === '/health') return res.writeHead(200).end('ok')
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const recorded = answers.get(`${req.method} ${req.url} ${Buffer.concat(chunks).toString('utf8')}`)
    if (!recorded) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not recorded')
    res.writeHead(recorded.status, recorded.headers).end(recorded.body)
  })
}

const servers = (process.env.HOSTS ?? '127.0.0.1').split(',').map((host) => {
  const server = createServer(answer)
  server.keepAliveTimeout = 60_000
  server.listen(Number(process.env.PORT), host)
  return server
})
process.once('SIGTERM', () => {
  let open = servers.length
  for (const server of servers) server.close(() => --open === 0 && process.exit(0))
})
