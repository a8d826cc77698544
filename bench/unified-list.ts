/**
 * The unified list of 100 events with field selection through Unigate, against the same provider page
 * read from the emulator directly, in one run. The ratio is Unigate's cost on top of the provider call.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { DEFAULT_PERSONAL_API_KEY, startPosthogEmulator } from '../emulators/posthog/index.js'
import { loadConfig } from '../src/config.js'
import { buildApp } from '../src/http/app.js'
import { createServices } from '../src/services.js'
import { type LoadResult, load } from './load.js'

export async function benchUnifiedList(): Promise<{ rows: LoadResult[]; summary: string }> {
  const emulator = await startPosthogEmulator({ seed: 1, size: { events: 100_000 } })
  const config = loadConfig({
    UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-bench-')),
    UNIGATE_MASTER_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    PORT: '0',
    // The emulator listens on loopback, which the outbound address policy refuses unless allowed.
    UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
  })
  const services = await createServices(config)
  const app = await buildApp(services)
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  try {
    const { workspace } = await services.workspaces.create('bench')
    const { apiKey } = await services.apiKeys.issue(workspace.id)
    const connection = await services.connections.create(workspace.id, {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
    })
    const path = `/analytics/${connection.id}/event?limit=100&fields=id,name,event_type,created_at`
    const headers = { authorization: `Bearer ${apiKey}` }
    // One call through Unigate shows exactly which provider request serves this page; replay that one directly.
    emulator.clearRequests()
    const probe = await request(`${base}${path}`, { headers })
    const page = (await probe.body.json()) as unknown[]
    if (probe.statusCode !== 200 || page.length !== 100) throw new Error(`probe failed: ${probe.statusCode}`)
    const [providerCall] = emulator.requests()
    if (!providerCall) throw new Error('the probe reached no provider')
    const query = new URLSearchParams(providerCall.query as Record<string, string>).toString()
    const direct = await load({
      name: 'emulator directly (baseline)',
      url: `${emulator.url}${providerCall.path}${query ? `?${query}` : ''}`,
      method: providerCall.method as 'GET' | 'POST',
      headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}`, 'content-type': 'application/json' },
      ...(providerCall.body !== undefined ? { body: JSON.stringify(providerCall.body) } : {}),
    })
    const through = await load({ name: 'through Unigate', url: `${base}${path}`, headers })
    const ratio = through.requestsPerSecond / direct.requestsPerSecond
    const p50 = through.p50Ms - direct.p50Ms
    return {
      rows: [direct, through],
      summary: `GET ${path.replace(connection.id, '{connection}')}: Unigate serves ${(ratio * 100).toFixed(0)}% of the emulator's direct throughput; p50 adds ${p50} ms`,
    }
  } finally {
    await app.close()
    await services.close()
    await emulator.close()
  }
}
