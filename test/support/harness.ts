import { PassThrough } from 'node:stream'
import { request } from 'undici'
import type { Config } from '../../src/config.js'
import { buildApp } from '../../src/http/app.js'
import { createServices, type Services } from '../../src/services.js'
import { testConfig } from './config.js'
import { dropSchema, type StoreKind, uniqueSchema } from './stores.js'

export interface ApiResponse<T = unknown> {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly body: T
}

export interface RequestOptions {
  readonly query?: Record<string, string | number | readonly (string | number)[]>
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** Defaults to the harness workspace's key; null sends no authorization header. */
  readonly key?: string | null
}

export interface Harness {
  readonly url: string
  readonly services: Services
  readonly workspaceId: string
  readonly apiKey: string
  readonly secret: string
  api<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>
  /** Another workspace with its own key, for isolation tests. */
  otherWorkspace(): Promise<{ workspaceId: string; apiKey: string }>
  /** Every JSON log line the server wrote so far (info level and up). */
  logs(): string
  close(): Promise<void>
}

export function queryString(query: RequestOptions['query']): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item))
  }
  const s = params.toString()
  return s ? `?${s}` : ''
}

/** Starts a real Unigate server on a random port, on the given store, with one workspace. */
export async function startHarness(store: StoreKind, overrides: Partial<Config> = {}): Promise<Harness> {
  const config = testConfig(store, { logLevel: 'info', ...overrides })
  const pgSchema = store === 'postgres' ? uniqueSchema() : undefined
  const services = await createServices(config, pgSchema ? { pgSchema } : {})
  const logStream = new PassThrough()
  const logLines: string[] = []
  logStream.on('data', (chunk: Buffer) => logLines.push(chunk.toString('utf8')))
  const app = await buildApp(services, { logStream })
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  const { workspace, secret } = await services.workspaces.create('test')
  const { apiKey } = await services.apiKeys.issue(workspace.id)

  const api = async <T>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...options.headers }
    const key = options.key === undefined ? apiKey : options.key
    if (key !== null) headers.authorization ??= `Bearer ${key}`
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
      headers['content-type'] ??= 'application/json'
    }
    const res = await request(`${url}${path}${queryString(options.query)}`, {
      method: method as 'GET',
      headers,
      body,
    })
    const text = await res.body.text()
    let parsed: unknown = text
    if (String(res.headers['content-type'] ?? '').includes('json') && text !== '') parsed = JSON.parse(text)
    return { status: res.statusCode, headers: res.headers, text, body: parsed as T }
  }

  return {
    url,
    services,
    workspaceId: workspace.id,
    apiKey,
    secret,
    api,
    async otherWorkspace() {
      const other = await services.workspaces.create('other')
      const { apiKey: otherKey } = await services.apiKeys.issue(other.workspace.id)
      return { workspaceId: other.workspace.id, apiKey: otherKey }
    },
    logs: () => logLines.join(''),
    async close() {
      await app.close()
      await services.close()
      if (pgSchema) await dropSchema(pgSchema)
    },
  }
}
