import { afterAll, beforeAll, expect } from 'vitest'
import type { Config } from '../../src/config.js'
import { buildApp } from '../../src/http/app.js'
import { createServices, type Services } from '../../src/services.js'
import { testConfig } from './config.js'
import { freePort } from './server-process.js'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js'

export interface ApiAnswer<T> {
  readonly status: number
  readonly text: string
  readonly body: T
}

export interface NativeServer {
  /** Unigate's public address: providers call it back there. */
  readonly base: string
  readonly receiver: WebhookReceiver
  readonly services: Services
  api<T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>>
  /** Creates a connection, expecting 200, and answers its id. */
  connect(body: { integration_type: string; auth: unknown }): Promise<string>
  /** Creates a webhook posting to the receiver, expecting 200 and a native one; answers its id. */
  nativeWebhook(body: {
    connection_id: string
    object_type: string
    event: string
    fields?: string
  }): Promise<string>
  close(): Promise<void>
}

/**
 * Unigate listening on a port known before it starts (a provider must reach it at its public address),
 * one workspace with an API key, and a receiver verifying the workspace's signed deliveries.
 */
export async function startNativeServer(
  workspace: string,
  webhooks: Partial<Config['webhooks']> = {},
  /** Other settings (a short provider timeout), and where the background log goes. */
  options: { readonly config?: Partial<Config>; readonly logStream?: NodeJS.WritableStream } = {},
): Promise<NativeServer> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const config = testConfig('sqlite', { ...options.config, publicUrl: base })
  const services = await createServices(
    { ...config, webhooks: { ...config.webhooks, ...webhooks } },
    options.logStream ? { logStream: options.logStream } : {},
  )
  const app = await buildApp(services, { logger: false })
  await app.listen({ host: '127.0.0.1', port })
  const { workspace: ws, secret } = await services.workspaces.create(workspace)
  const apiKey = (await services.apiKeys.issue(ws.id)).apiKey
  const receiver = await startWebhookReceiver(secret)
  const api = async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as T }
  }
  return {
    base,
    receiver,
    services,
    api,
    async connect(body) {
      const created = await api<{ id: string }>('POST', '/unified/connection', body)
      expect(created.status, created.text).toBe(200)
      return created.body.id
    },
    async nativeWebhook(body) {
      const hook = await api<{ id: string; webhook_type: string }>('POST', '/unified/webhook', {
        ...body,
        hook_url: receiver.url,
      })
      expect(hook.status, hook.text).toBe(200)
      expect(hook.body.webhook_type).toBe('native')
      return hook.body.id
    },
    async close() {
      await app.close()
      await services.close()
      await receiver.close()
    },
  }
}

export interface NativeSuite<E> {
  readonly emulator: E
  readonly server: NativeServer
  /** The connection to the emulator. */
  readonly connection: string
}

/**
 * Runs a native-webhook suite: before it, the provider's emulator, a native server and a connection to the
 * emulator (handed to `ready`); after it, closes the server and the emulator.
 */
export function useNativeSuite<E extends { close(): Promise<void> }>(options: {
  readonly workspace: string
  readonly start: () => Promise<E>
  readonly connection: (emulator: E) => { integration_type: string; auth: unknown }
  readonly ready: (suite: NativeSuite<E>) => void
}): void {
  let emulator: E | undefined
  let server: NativeServer | undefined
  beforeAll(async () => {
    emulator = await options.start()
    server = await startNativeServer(options.workspace)
    const connection = await server.connect(options.connection(emulator))
    options.ready({ emulator, server, connection })
  })
  afterAll(async () => {
    await server?.close()
    await emulator?.close()
  })
}
