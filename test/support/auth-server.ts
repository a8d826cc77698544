import { request } from 'undici'
import { afterAll, beforeAll, expect } from 'vitest'
import type { Config } from '../../src/config.js'
import { buildApp } from '../../src/http/app.js'
import { createServices, type Services } from '../../src/services.js'
import { testConfig } from './config.js'

export { freePort } from './server-process.js'

import { freePort } from './server-process.js'
import { type StoreKind, uniqueSchema } from './stores.js'

export interface AuthServer {
  readonly url: string
  readonly services: Services
  readonly workspaceId: string
  readonly apiKey: string
  readonly secret: string
  /** A JSON call with the workspace key. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>
  close(): Promise<void>
}

/**
 * A Unigate server whose public URL is its real address: the authorization flow builds links and OAuth
 * redirect URIs from it, and a browser or an emulator must be able to follow them.
 */
export async function startAuthServer(
  store: StoreKind,
  overrides: Partial<Config> = {},
  pgSchema: string = uniqueSchema(),
  /** Where the server's log lines go; none are written without it. */
  logStream?: NodeJS.WritableStream,
): Promise<AuthServer> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const config = testConfig(store, { port, publicUrl: url, ...overrides })
  const services = await createServices(config, store === 'postgres' ? { pgSchema } : {})
  const app = await buildApp(services, logStream ? { logStream } : { logger: false })
  await app.listen({ host: '127.0.0.1', port })
  const { workspace, secret } = await services.workspaces.create('auth-test')
  const { apiKey } = await services.apiKeys.issue(workspace.id)
  return {
    url,
    services,
    workspaceId: workspace.id,
    apiKey,
    secret,
    async api<T>(method: string, path: string, body?: unknown) {
      const res = await request(`${url}${path}`, {
        method: method as 'GET',
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      })
      const text = await res.body.text()
      return { status: res.statusCode, body: (text ? JSON.parse(text) : undefined) as T }
    },
    async close() {
      await app.close()
      await services.close()
    },
  }
}

/** A plain GET that does not follow redirects: what a browser would be told. */
export async function browserGet(url: string) {
  const res = await request(url, { method: 'GET' })
  const text = await res.body.text()
  return {
    status: res.statusCode,
    location: res.headers.location as string | undefined,
    headers: res.headers,
    text,
  }
}

export async function browserPost(url: string, form: Record<string, string>) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  })
  const text = await res.body.text()
  return {
    status: res.statusCode,
    location: res.headers.location as string | undefined,
    headers: res.headers,
    text,
  }
}

/**
 * Runs an OAuth suite: before it, the provider's emulator and an auth server on `store` whose workspace allows
 * redirects to `app`; `configure` then registers Unigate's callback with the provider and the OAuth app with
 * the workspace, and `ready` gets both. After it, closes both.
 */
export function useOAuthSuite<P extends { close(): Promise<void> }>(options: {
  readonly store: StoreKind
  readonly app: string
  readonly start: () => Promise<P>
  readonly configure: (s: AuthServer, provider: P) => Promise<void>
  readonly ready: (s: AuthServer, provider: P) => void
  /** Settings of the suite's server that differ from testConfig's. */
  readonly overrides?: Partial<Config>
}): void {
  let s: AuthServer | undefined
  let provider: P | undefined
  beforeAll(async () => {
    provider = await options.start()
    s = await startAuthServer(options.store, options.overrides)
    await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [options.app] })
    await options.configure(s, provider)
    options.ready(s, provider)
  })
  afterAll(async () => {
    await s?.close()
    await provider?.close()
  })
}

/**
 * Starts the authorization flow as a browser does, asking to come back to `${app}/ok` or `${app}/failed` with
 * the caller's state `their-state` (`query` adds or overrides): expects 200 and answers the provider's
 * authorize URL that Unigate hands out.
 */
export async function startAuthorization(
  s: AuthServer,
  integrationType: string,
  app: string,
  query: Record<string, string> = {},
): Promise<URL> {
  const params = new URLSearchParams({
    success_redirect: `${app}/ok`,
    failure_redirect: `${app}/failed`,
    state: 'their-state',
    ...query,
  })
  const res = await browserGet(
    `${s.url}/unified/integration/auth/${s.workspaceId}/${integrationType}?${params}`,
  )
  expect(res.status).toBe(200)
  return new URL(res.text)
}
