/**
 * `npm run demo`: the provider emulators, the server on the embedded store, a workspace and one connection
 * per integration, then a key and curl commands that work as printed.
 */
import { request } from 'undici'
import { loadConfig } from '../src/config.js'
import { integrationOf } from '../src/integrations/registry.js'
import { supportMatrix } from '../src/integrations/support.js'
import { startServer } from '../src/server.js'
import { DEMO_PROVIDERS, type DemoProvider } from './providers.js'

const step = (text: string) => console.error(`[demo] ${text}`)

/** A read that works on this provider's emulator: its probe, or the first record list needing no filter. */
function firstRead(provider: DemoProvider): string | undefined {
  if (provider.probe) return `${provider.probe.object}?${new URLSearchParams(provider.probe.query)}`
  const integration = integrationOf(provider.integrationType)
  const matrix = integration ? supportMatrix(integration) : {}
  const object = ['analytics_property', 'analytics_visitor', 'analytics_session'].find(
    (o) => matrix[o]?.methods.list,
  )
  return object ? `${object.replace('analytics_', '')}?limit=3` : undefined
}

async function main(): Promise<void> {
  // The emulators listen on loopback, which the outbound address policy refuses unless allowed.
  const config = loadConfig({
    PORT: '8080',
    LOG_LEVEL: 'warn',
    UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
    ...process.env,
  })
  step(`starting ${DEMO_PROVIDERS.length} provider emulator(s)`)
  const emulators = await Promise.all(
    DEMO_PROVIDERS.map(async (p) => ({ provider: p, ...(await p.start()) })),
  )
  step(
    `starting Unigate on ${config.host}:${config.port} (store: ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`})`,
  )
  const server = await startServer(config)
  const base = config.publicUrl
  const { workspace, secret } = await server.services.workspaces.create('demo')
  const { apiKey } = await server.services.apiKeys.issue(workspace.id)

  const connections: { type: string; id: string; read?: string }[] = []
  for (const e of emulators) {
    step(`connecting ${e.provider.integrationType} (emulator at ${e.url})`)
    const res = await request(`${base}/unified/connection`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ integration_type: e.provider.integrationType, auth: e.auth }),
    })
    const body = (await res.body.json()) as { id?: string; message?: string }
    if (res.statusCode !== 200 || !body.id)
      throw new Error(`connecting ${e.provider.integrationType} failed: ${body.message}`)
    connections.push({ type: e.provider.integrationType, id: body.id, read: firstRead(e.provider) })
  }

  const first = connections[0]!
  const auth = `-H 'authorization: Bearer ${apiKey}'`
  console.log(`
Unigate is running at ${base}   (API reference: ${base}/docs)

API key:          ${apiKey}
workspace secret: ${secret}   (verifies webhook sig256 and redirect sig)
workspace:        ${workspace.id}
${connections.map((c) => `connection (${c.type}): ${c.id}`).join('\n')}

Try:
curl -s ${auth} '${base}/unified/integration?summary=true'
curl -s ${auth} '${base}/unified/connection'
curl -s ${auth} '${base}/analytics/${first.id}/property'
curl -s ${auth} '${base}/analytics/${first.id}/event?limit=5&fields=id,name,event_type,created_at'
curl -s ${auth} '${base}/analytics/${first.id}/event?limit=2&fields=id,name,raw'
curl -s ${auth} '${base}/analytics/${first.id}/session?limit=3'
curl -s ${auth} '${base}/analytics/${first.id}/visitor?limit=3&fields=id,email,total_events'
curl -s ${auth} '${base}/analytics/${first.id}/report?start_gte=2024-12-25&end_lt=2025-01-01&dimension=DATE'
curl -s ${auth} '${base}/passthrough/${first.id}/api/users/@me/'

The other integrations:
${connections
  .slice(1)
  .filter((c) => c.read)
  .map((c) => `curl -s ${auth} '${base}/analytics/${c.id}/${c.read}'`)
  .join('\n')}

Press Ctrl+C to stop.`)

  const stop = async () => {
    await server.close()
    await Promise.all(emulators.map((e) => e.close()))
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((err: unknown) => {
  console.error(`[demo] failed: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
