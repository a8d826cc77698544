// The provider, replaced by the bytes it answered once: every recorded request (method, path and query,
// body) is answered with its recorded status, content type and body, at no cost of the provider's own.
// RECORDINGS names a JSON file written by bench/replay.ts; PORT is where to listen.
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

const server = createServer((req, res) => {
  if (req.url === '/health') return res.writeHead(200).end('ok')
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const answer = answers.get(`${req.method} ${req.url} ${Buffer.concat(chunks).toString('utf8')}`)
    if (!answer) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not recorded')
    res.writeHead(answer.status, answer.headers).end(answer.body)
  })
})
server.keepAliveTimeout = 60_000
server.listen(Number(process.env.PORT), '127.0.0.1')
process.once('SIGTERM', () => server.close(() => process.exit(0)))
