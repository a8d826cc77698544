/**
 * Recording half of the replay provider: a proxy in front of the emulator that keeps every answer's bytes.
 * The bench records once (the emulator does its real work then), writes the recordings to a file, and the
 * replay server (baselines/replay-server.mjs) answers from them during the measured runs.
 */
import { writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { request } from 'undici'
import { type BenchProcess, startProcess } from './processes.js'

export interface Recording {
  readonly method: string
  readonly url: string
  readonly body: string
  readonly status: number
  readonly contentType: string
  /** base64 of the answer's bytes */
  readonly answer: string
}

export interface Recorder {
  readonly recordings: Recording[]
  save(file: string): void
  close(): Promise<void>
}

/**
 * The loopback addresses a provider answers on for `tenants` tenants besides the usual one: 127.0.0.1, then
 * 127.0.0.2 and on (Linux routes all of 127.0.0.0/8 to the loopback device). A connection per address makes
 * each tenant's provider a host of its own, as many customers' PostHog projects are, while one replay
 * answers them all.
 */
export function loopbackHosts(tenants = 0): string[] {
  if (tenants > 250)
    throw new Error('at most 250 tenants: one loopback address each, 127.0.0.2 to 127.0.0.251')
  return ['127.0.0.1', ...Array.from({ length: tenants }, (_, i) => `127.0.0.${i + 2}`)]
}

/** Listens on `port` of each of `hosts`, forwards everything to `upstream` and records each exchange. */
export async function startRecorder(
  port: number,
  upstream: string,
  hosts: readonly string[] = loopbackHosts(),
): Promise<Recorder> {
  const recordings: Recording[] = []
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) {
        if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length')
          headers[k] = v
      }
      const answer = await request(`${upstream}${req.url}`, {
        method: req.method as 'GET',
        headers,
        body: body === '' ? null : body,
      })
      const bytes = Buffer.from(await answer.body.arrayBuffer())
      const contentType = String(answer.headers['content-type'] ?? 'application/json')
      recordings.push({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        body,
        status: answer.statusCode,
        contentType,
        answer: bytes.toString('base64'),
      })
      res.writeHead(answer.statusCode, { 'content-type': contentType }).end(bytes)
    })
  }
  const servers: Server[] = []
  for (const host of hosts) {
    const server = createServer(handle)
    servers.push(server)
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRNOTAVAIL'
            ? new Error(`${host} is not a loopback address here: run with BENCH_TENANTS=0`, { cause: err })
            : err,
        ),
      )
      server.listen(port, host, resolve)
    })
  }
  return {
    recordings,
    save: (file) => writeFileSync(file, JSON.stringify(recordings)),
    close: () => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => {}),
  }
}

/**
 * The replay server (baselines/replay-server.mjs) on `port` of each of `hosts`, answering from the recordings
 * saved in `file`.
 */
export function startReplay(
  file: string,
  port: number,
  hosts: readonly string[] = loopbackHosts(),
): Promise<BenchProcess> {
  return startProcess(
    process.execPath,
    ['bench/baselines/replay-server.mjs'],
    { RECORDINGS: file, HOSTS: hosts.join(',') },
    { port },
  )
}
