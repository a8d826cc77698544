import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { type Fault, FaultError, FaultQueue } from './faults.js'
import { RequestRecorder } from './recorder.js'

/** Control endpoints live here on every emulator; they are neither recorded nor subject to faults. */
export const CONTROL_PREFIX = '/__emulator/'

export interface FaultResponse {
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export interface EmulatorServerOptions {
  /** The provider's own error body (and headers, such as Retry-After) for a fault's status. */
  readonly faultResponse: (status: number, fault: Fault) => FaultResponse
  readonly maxRecorded?: number
  /** Largest request body accepted, in bytes. */
  readonly bodyLimit?: number
}

export interface EmulatorServer {
  readonly app: FastifyInstance
  readonly recorder: RequestRecorder
  readonly faults: FaultQueue
}

/** Timers of delayed answers, cut short on close so a slow-response fault never holds a shutdown. */
class Delays {
  private readonly pending = new Set<() => void>()

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.pending.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.pending.add(done)
    })
  }

  releaseAll(): void {
    for (const done of [...this.pending]) done()
  }
}

function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? request.url
  const q = url.indexOf('?')
  return q < 0 ? url : url.slice(0, q)
}

/**
 * A Fastify app with the parts every emulator shares: a request recorder, a fault queue applied before any
 * provider logic (so a 429 comes before auth, as at a real edge), and the `/__emulator/` control endpoints
 * through which another process (demo, benchmark) can drive it.
 */
export function createEmulatorServer(options: EmulatorServerOptions): EmulatorServer {
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? 20 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  })
  const recorder = new RequestRecorder(options.maxRecorded)
  const faults = new FaultQueue()
  const delays = new Delays()

  /** Requests served now whose answers a `lateAnswerMs` fault holds back, and for how long. */
  const lateAnswers = new WeakMap<FastifyRequest, number>()

  app.addHook('preClose', async () => delays.releaseAll())
  app.addHook('onSend', async (request, _reply, payload) => {
    const late = lateAnswers.get(request)
    if (late !== undefined) await delays.wait(late)
    return payload
  })
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = pathOf(request)
    if (path.startsWith(CONTROL_PREFIX)) return
    recorder.record({
      method: request.method,
      path,
      query: { ...(request.query as Record<string, string | string[]>) },
      headers: { ...request.headers },
      body: request.body,
      time: new Date().toISOString(),
    })
    const fault = faults.take(request.method, path)
    if (!fault) return
    if (fault.delayMs) await delays.wait(fault.delayMs)
    if (fault.lateAnswerMs !== undefined) {
      lateAnswers.set(request, fault.lateAnswerMs)
      return
    }
    if (fault.status === undefined) return
    if (fault.rawBody !== undefined) {
      reply.code(fault.status).headers({ 'content-type': 'application/json', ...fault.headers })
      return reply.send(fault.rawBody)
    }
    const standard = options.faultResponse(fault.status, fault)
    reply.code(fault.status).headers({ ...standard.headers, ...fault.headers })
    return reply.send(fault.body ?? standard.body)
  })
  registerControlRoutes(app, recorder, faults)
  return { app, recorder, faults }
}

function registerControlRoutes(app: FastifyInstance, recorder: RequestRecorder, faults: FaultQueue): void {
  app.get(`${CONTROL_PREFIX}requests`, async () => recorder.all())
  app.delete(`${CONTROL_PREFIX}requests`, async (_request, reply) => {
    recorder.clear()
    return reply.code(204).send()
  })
  app.get(`${CONTROL_PREFIX}faults`, async () => faults.pending())
  app.post(`${CONTROL_PREFIX}faults`, async (request, reply) => {
    const list = Array.isArray(request.body) ? request.body : [request.body]
    try {
      for (const fault of list) faults.add(fault as Fault)
    } catch (err) {
      if (err instanceof FaultError) return reply.code(400).send({ error: err.message })
      throw err
    }
    return reply.code(201).send({ queued: list.length })
  })
  app.delete(`${CONTROL_PREFIX}faults`, async (_request, reply) => {
    faults.clear()
    return reply.code(204).send()
  })
}

/** Starts listening and answers the base URL (`http://127.0.0.1:PORT`). */
export async function listen(app: FastifyInstance, port: number, host: string): Promise<string> {
  await app.listen({ port, host })
  const address = app.server.address() as AddressInfo
  const hostPart = host.includes(':') ? `[${host}]` : host
  return `http://${hostPart}:${address.port}`
}
