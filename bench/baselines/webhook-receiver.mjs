// A webhook receiver in a process of its own, as a real receiver is: it verifies sig256 on every body the way
// README's receiver example does (HMAC-SHA256 of the `data` text and the nonce, keyed with the workspace
// secret, compared in constant time) and counts what it accepted. Started with fork() by
// bench/webhook-deliveries.ts; SECRET is the workspace secret. Over IPC it answers:
//   {type: 'reset'}  -> {type: 'reset'}: counts, arrival times and CPU time start again;
//   {type: 'counts'} -> {type: 'counts', verified, rejected};
//   {type: 'report'} -> {type: 'report', verified, rejected, arrivals (epoch ms), cpuUs (user + system)}.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'

const secret = process.env.SECRET
let verified = 0
let rejected = 0
let arrivals = []
let cpuSince = process.cpuUsage()

function verify(text) {
  if (!text.startsWith('{"data":')) return false
  const end = text.lastIndexOf(',"webhook":')
  if (end < 0) return false
  const body = JSON.parse(text)
  const expected = createHmac('sha256', secret)
    .update(text.slice('{"data":'.length, end))
    .update(String(body.nonce))
    .digest()
  const given = Buffer.from(String(body.sig256), 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    let ok = false
    try {
      ok = verify(Buffer.concat(chunks).toString('utf8'))
    } catch {
      ok = false
    }
    if (ok) verified++
    else rejected++
    arrivals.push(performance.timeOrigin + performance.now())
    res.writeHead(200).end()
  })
})
server.keepAliveTimeout = 60_000

process.on('message', (m) => {
  if (m.type === 'reset') {
    verified = 0
    rejected = 0
    arrivals = []
    cpuSince = process.cpuUsage()
    process.send({ type: 'reset' })
  } else if (m.type === 'counts') {
    process.send({ type: 'counts', verified, rejected })
  } else if (m.type === 'report') {
    const cpu = process.cpuUsage(cpuSince)
    process.send({ type: 'report', verified, rejected, arrivals, cpuUs: cpu.user + cpu.system })
  }
})
process.on('disconnect', () => server.close(() => process.exit(0)))
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }))
