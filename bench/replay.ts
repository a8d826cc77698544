/**
 * Recording half of the replay provider: a proxy in front of the emulator that keeps every answer's bytes.
 * The bench records once (the emulator does its real work then), writes the recordings to a file, and the
 * replay server (baselines/replay-server.mjs) answers from them during the measured runs.
 */
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
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

/** Listens on `port`, forwards everything to `upstream` and records each exchange. */
export async function startRecorder(port: number, upstream: string): Promise<Recorder> {
  const recordings: Recording[] = []
  const server: Server = createServer((req, res) => {
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
  })
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r))
  return {
    recordings,
    save: (file) => writeFileSync(file, JSON.stringify(recordings)),
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}

/** The replay server (baselines/replay-server.mjs) on `port`, answering from the recordings saved in `file`. */
export function startReplay(file: string, port: number): Promise<BenchProcess> {
  return startProcess(process.execPath, ['bench/baselines/replay-server.mjs'], { RECORDINGS: file }, { port })
}
