import { afterAll, beforeAll, beforeEach, expect } from 'vitest'
import { modelOf } from '../../src/models/index.js'
import { type ApiResponse, type Harness, type RequestOptions, startHarness } from './harness.js'

/** What an end-to-end suite needs of an emulator. */
export interface SuiteEmulator {
  clearRequests(): void
  clearFaults(): void
  close(): Promise<void>
}

export interface EmulatorSuiteOptions<E extends SuiteEmulator> {
  readonly start: () => Promise<E>
  /** The Unigate harness (default: one on SQLite with the test configuration). */
  readonly harness?: () => Promise<Harness>
  /** Runs once both are up: keep them, create the suite's connections. */
  readonly ready: (h: Harness, emu: E) => Promise<void> | void
  /** More to reset before each test, after the emulator's requests and faults are cleared. */
  readonly reset?: (emu: E) => void
}

/**
 * Runs a suite against an emulator and a Unigate harness on SQLite: starts both before the suite, closes them
 * after it, and clears the emulator's recorded requests and queued faults before each test.
 */
export function useEmulatorSuite<E extends SuiteEmulator>(options: EmulatorSuiteOptions<E>): void {
  let h: Harness | undefined
  let emu: E | undefined
  beforeAll(async () => {
    emu = await options.start()
    h = await (options.harness?.() ?? startHarness('sqlite'))
    await options.ready(h, emu)
  })
  afterAll(async () => {
    await h?.close()
    await emu?.close()
  })
  beforeEach(() => {
    const started = emu as E
    started.clearRequests()
    started.clearFaults()
    options.reset?.(started)
  })
}

/** Expects a connection to have been created (200) and answers its id. */
export async function connected(response: Promise<ApiResponse<{ id: string }>>): Promise<string> {
  const res = await response
  expect(res.status).toBe(200)
  return res.body.id
}

/** Creates a connection, expecting 200, and answers its id. */
export function createConnection(
  h: Harness,
  body: { integration_type: string; auth: unknown },
): Promise<string> {
  return connected(h.api<{ id: string }>('POST', '/unified/connection', { body }))
}

/** Per model object (`analytics_property`), the operations an integration claims (true) or not (false). */
export type SupportMatrix = Record<string, { methods: Record<string, boolean> }>

/** The support matrix `GET /unified/integration` publishes for one integration type. */
export async function supportMatrixOf(h: Harness, type: string): Promise<SupportMatrix> {
  const res = await h.api<Record<string, unknown>[]>('GET', '/unified/integration', { query: { type } })
  return res.body[0]?.support as SupportMatrix
}

export interface MatrixStep {
  readonly object: string
  readonly method: string
  readonly claimed: boolean
  /** The object's collection, `${base}/<model path>`: `${base}/property` for `analytics_property`. */
  readonly path: string
  /** The id the walk's last `create` answered ('' before any). */
  readonly created: string
}

/** What the walk sends for each operation; `list` and `create` go to the collection, the others to `${path}/${id}`. */
export interface MatrixRequests {
  readonly query?: (step: MatrixStep) => RequestOptions['query']
  readonly body?: (step: MatrixStep) => unknown
  /** The id a `get`, `update`, `patch` or `remove` addresses; it may create what it removes first. */
  readonly id: (step: MatrixStep) => string | Promise<string>
}

/**
 * Calls every operation of the matrix, object by object, and expects 200 from each claimed one and 501 from
 * each one that is not: the integration claims exactly what works.
 */
export async function expectSupportMatrixAnswers(
  h: Harness,
  base: string,
  support: SupportMatrix,
  requests: MatrixRequests,
): Promise<void> {
  let created = ''
  for (const [object, { methods }] of Object.entries(support)) {
    for (const [method, claimed] of Object.entries(methods)) {
      const step = { object, method, claimed, path: `${base}/${modelOf(object)?.path ?? object}`, created }
      const item = async () => `${step.path}/${await requests.id(step)}`
      let res: ApiResponse<Record<string, unknown> | undefined>
      if (method === 'list') res = await h.api('GET', step.path, { query: requests.query?.(step) ?? {} })
      else if (method === 'get') res = await h.api('GET', await item())
      else if (method === 'create') {
        res = await h.api('POST', step.path, { body: requests.body?.(step) })
        created = String(res.body?.id)
      } else if (method === 'update' || method === 'patch') {
        const path = await item()
        res = await h.api(method === 'update' ? 'PUT' : 'PATCH', path, { body: requests.body?.(step) })
      } else if (method === 'remove') res = await h.api('DELETE', await item())
      else throw new Error(`no request for ${object}.${method}`)
      expect([object, method, res.status]).toEqual([object, method, claimed ? 200 : 501])
    }
  }
}
