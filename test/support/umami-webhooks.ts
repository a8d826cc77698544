import { expect } from 'vitest'
import { DEFAULT_UMAMI_LOGIN_TOKEN } from '../../emulators/umami/index.js'
import { loadConfig } from '../../src/config.js'
import { createServices } from '../../src/services.js'
import { callApi } from './server-process.js'

/**
 * A workspace and its API key in the store `env` configures, made before any server process runs on it
 * (the processes then serve it); answers the key and the workspace's signing secret.
 */
export async function workspaceIn(
  env: Record<string, string>,
  name: string,
): Promise<{ apiKey: string; secret: string }> {
  const services = await createServices(loadConfig(env), { background: false })
  try {
    const { workspace, secret } = await services.workspaces.create(name)
    const { apiKey } = await services.apiKeys.issue(workspace.id)
    return { apiKey, secret }
  } finally {
    await services.close()
  }
}

/** Connects the workspace to the Umami emulator through a server's API, expecting 200; answers the id. */
export async function connectUmami(serverUrl: string, apiKey: string, emulatorUrl: string): Promise<string> {
  const conn = await callApi<{ id: string }>(serverUrl, apiKey, 'POST', '/unified/connection', {
    integration_type: 'umami',
    auth: { api_key: DEFAULT_UMAMI_LOGIN_TOKEN, meta: { api_url: `${emulatorUrl}/api` } },
  })
  expect(conn.status, conn.text).toBe(200)
  return conn.body.id
}

/**
 * A virtual webhook on the connection's websites that starts with a backfill of them all (include_all), then
 * waits (interval 100000) rather than poll again during a test; expects 200 and answers its id.
 */
export async function backfillingWebhook(
  serverUrl: string,
  apiKey: string,
  webhook: { connection_id: string; hook_url: string; page_max_limit?: number },
): Promise<string> {
  const hook = await callApi<{ id: string }>(serverUrl, apiKey, 'POST', '/unified/webhook?include_all=true', {
    object_type: 'analytics_property',
    event: 'created',
    interval: 100_000,
    ...webhook,
  })
  expect(hook.status, hook.text).toBe(200)
  return hook.body.id
}
