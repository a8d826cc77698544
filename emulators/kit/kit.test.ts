import { afterEach, describe, expect, it } from 'vitest'
import { FaultQueue, parseFault } from './faults.js'
import { isUuid, uuidV4, uuidV7, uuidV7Millis } from './ids.js'
import { hash32, SeededRandom } from './random.js'
import { RequestRecorder } from './recorder.js'
import { createEmulatorServer, listen } from './server.js'

describe('SeededRandom', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    const draw = (seed: number) => {
      const r = new SeededRandom(seed)
      return [r.next(), r.int(1, 6), r.pick(['a', 'b', 'c']), r.weightedIndex([1, 2, 3])]
    }
    expect(draw(7)).toEqual(draw(7))
    expect(draw(7)).not.toEqual(draw(8))
  })

  it('keeps int within its bounds', () => {
    const r = new SeededRandom(1)
    for (let i = 0; i < 1000; i++) {
      const v = r.int(3, 5)
      expect(v).toBeGreaterThanOrEqual(3)
      expect(v).toBeLessThanOrEqual(5)
    }
  })

  it('hashes argument lists deterministically', () => {
    expect(hash32(1, 2)).toBe(hash32(1, 2))
    expect(hash32(1, 2)).not.toBe(hash32(2, 1))
  })
})

describe('ids', () => {
  it('makes UUIDv7 that carry their time', () => {
    const ms = Date.parse('2024-05-01T10:00:00.123Z')
    const id = uuidV7(ms, new SeededRandom(1))
    expect(isUuid(id)).toBe(true)
    expect(id[14]).toBe('7')
    expect(uuidV7Millis(id)).toBe(ms)
  })

  it('makes UUIDv4 with the right version and variant', () => {
    const id = uuidV4(new SeededRandom(2))
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})

describe('FaultQueue', () => {
  it('applies a fault to as many matching requests as its times, then serves', () => {
    const q = new FaultQueue()
    q.add({ status: 429, times: 2, pathPattern: '/query/?$', method: 'POST' })
    expect(q.take('GET', '/api/projects/1/query/')).toBeUndefined()
    expect(q.take('POST', '/api/projects/1/persons/')).toBeUndefined()
    expect(q.take('POST', '/api/projects/1/query/')?.status).toBe(429)
    expect(q.take('POST', '/api/projects/1/query')?.status).toBe(429)
    expect(q.take('POST', '/api/projects/1/query/')).toBeUndefined()
  })

  it('refuses malformed faults with a reason', () => {
    expect(() => parseFault({ times: 1 })).toThrow(/status, a delayMs/)
    expect(() => parseFault({ status: 99 })).toThrow(/status/)
    expect(() => parseFault({ status: 500, pathPattern: '(' })).toThrow(/regular expression/)
    expect(() => parseFault({ status: 500, headers: { a: 1 } })).toThrow(/headers/)
    expect(() => parseFault({ lateAnswerMs: 100, status: 500 })).toThrow(/no status, body or rawBody/)
    expect(() => parseFault({ lateAnswerMs: 0 })).toThrow(/lateAnswerMs/)
  })
})

describe('RequestRecorder', () => {
  it('keeps only the most recent requests', () => {
    const r = new RequestRecorder(2)
    for (const path of ['/a', '/b', '/c']) {
      r.record({ method: 'GET', path, query: {}, headers: {}, body: undefined, time: '' })
    }
    expect(r.all().map((x) => x.path)).toEqual(['/b', '/c'])
  })
})

describe('createEmulatorServer', () => {
  let close: (() => Promise<void>) | undefined
  afterEach(async () => close?.())

  async function start() {
    const server = createEmulatorServer({ faultResponse: (status) => ({ body: { failed: status } }) })
    server.app.get('/hello', async () => ({ hi: true }))
    const url = await listen(server.app, 0, '127.0.0.1')
    close = () => server.app.close()
    return { ...server, url }
  }

  it('records requests and drives faults through the control endpoints', async () => {
    const { url } = await start()
    const queued = await fetch(`${url}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 503, headers: { 'x-why': 'test' } }),
    })
    expect(queued.status).toBe(201)
    const failed = await fetch(`${url}/hello?x=1`)
    expect(failed.status).toBe(503)
    expect(failed.headers.get('x-why')).toBe('test')
    expect(await failed.json()).toEqual({ failed: 503 })
    expect((await fetch(`${url}/hello`)).status).toBe(200)
    const recorded = (await (await fetch(`${url}/__emulator/requests`)).json()) as {
      path: string
      query: object
    }[]
    expect(recorded.map((r) => r.path)).toEqual(['/hello', '/hello'])
    expect(recorded[0]?.query).toEqual({ x: '1' })
    expect((await fetch(`${url}/__emulator/requests`, { method: 'DELETE' })).status).toBe(204)
    expect(await (await fetch(`${url}/__emulator/requests`)).json()).toEqual([])
    const bad = await fetch(`${url}/__emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'x' }),
    })
    expect(bad.status).toBe(400)
  })

  it('answers a raw body verbatim, for shapes a JSON body cannot express', async () => {
    const { url, faults } = await start()
    faults.add({ status: 200, rawBody: 'null' })
    faults.add({ status: 200, rawBody: '{"data": [', headers: { 'content-type': 'text/plain' } })
    const nullAnswer = await fetch(`${url}/hello`)
    expect(nullAnswer.status).toBe(200)
    expect(nullAnswer.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await nullAnswer.text()).toBe('null')
    const truncated = await fetch(`${url}/hello`)
    expect(truncated.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await truncated.text()).toBe('{"data": [')
    expect(() => parseFault({ status: 200, rawBody: 1 })).toThrow(/rawBody/)
  })

  it('delays a response and then serves it when the fault has no status', async () => {
    const { url, faults } = await start()
    faults.add({ delayMs: 150 })
    const started = Date.now()
    const res = await fetch(`${url}/hello`)
    expect(res.status).toBe(200)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  it('serves a request at once and holds back its answer with lateAnswerMs', async () => {
    const server = createEmulatorServer({ faultResponse: (status) => ({ body: { failed: status } }) })
    let served = 0
    server.app.post('/made', async () => ({ made: ++served }))
    const url = await listen(server.app, 0, '127.0.0.1')
    close = () => server.app.close()
    server.faults.add({ lateAnswerMs: 300 })
    const started = Date.now()
    const answer = fetch(`${url}/made`, { method: 'POST' })
    await new Promise((r) => setTimeout(r, 100))
    // Made before the answer left.
    expect(served).toBe(1)
    const res = await answer
    expect(await res.json()).toEqual({ made: 1 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('does not let a pending slow fault hold up close', async () => {
    const { url, faults, app } = await start()
    faults.add({ delayMs: 60_000, status: 500 })
    const pending = fetch(`${url}/hello`).catch(() => undefined)
    await new Promise((r) => setTimeout(r, 50))
    const started = Date.now()
    await app.close()
    close = undefined
    expect(Date.now() - started).toBeLessThan(5000)
    await pending
  })
})
