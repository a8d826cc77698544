/**
 * `npm run demo`: the provider emulators, the server on the embedded store, a workspace and one connection
 * per integration, then a key and curl commands that work as printed.
 */
import { request } from 'undici'
import { loadConfig } from '../src/config.js'
import { startServer } from '../src/server.js'
import { closeSharedEmulators, DEMO_PROVIDERS, demoRead, sharedEmulatorUrls } from './providers.js'

const step = (text: string) => console.error(`[demo] ${text}`)

/** The day `offset` days from today (UTC), YYYY-MM-DD: the demo's data ends today, so its examples use recent days. */
const dayFromToday = (offset: number) =>
  new Date((Math.floor(Date.now() / 86_400_000) + offset) * 86_400_000).toISOString().slice(0, 10)

/** The webhook receiver the printed example sends to, on this machine. */
const DEMO_WEBHOOK_RECEIVER = '127.0.0.1:9999'
/** Where the demo lets the authorization flow send users back (the developer's own machine). */
const DEMO_REDIRECT_ORIGINS = ['http://localhost', 'http://127.0.0.1']

async function call(base: string, apiKey: string, method: string, path: string, body: unknown) {
  const res = await request(`${base}${path}`, {
    method: method as 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await res.body.json()) as { id?: string; message?: string }
  if (res.statusCode !== 200) throw new Error(`${method} ${path} failed: ${res.statusCode} ${answer.message}`)
  return answer
}

async function main(): Promise<void> {
  step(`starting ${DEMO_PROVIDERS.length} provider emulator(s)`)
  const emulators = await Promise.all(
    DEMO_PROVIDERS.map(async (p) => ({ provider: p, ...(await p.start()) })),
  )
  // The emulators listen on 127.0.0.1, which the outbound address policy refuses unless allowed. Each one's
  // address and port is allowed, not all of loopback: that would open every local service to a key holder,
  // this server itself and other programs' emulators (whose recorded requests hold their tokens) included.
  const endpoints = [...emulators.map((e) => e.url), ...(await sharedEmulatorUrls())].map(
    (url) => new URL(url).host,
  )
  const allow = [...new Set([...endpoints, DEMO_WEBHOOK_RECEIVER])]
  const config = loadConfig({
    PORT: '8080',
    LOG_LEVEL: 'warn',
    ...process.env,
    UNIGATE_OUTBOUND_ALLOW_ADDRESSES: [...allow, process.env.UNIGATE_OUTBOUND_ALLOW_ADDRESSES]
      .filter(Boolean)
      .join(','),
  })
  step(
    `starting Unigate on ${config.host}:${config.port} (store: ${config.databaseUrl ? 'PostgreSQL' : `SQLite in ${config.dataDir}`})`,
  )
  step(
    `outbound requests may reach ${config.outbound.allowAddresses.join(', ')} on this machine (UNIGATE_OUTBOUND_ALLOW_ADDRESSES), the emulators and a webhook receiver at ${DEMO_WEBHOOK_RECEIVER}, and no other internal address; production allows none by default`,
  )
  const server = await startServer(config)
  const base = config.publicUrl
  const { workspace, secret } = await server.services.workspaces.create('demo')
  const { apiKey } = await server.services.apiKeys.issue(workspace.id)
  await call(base, apiKey, 'PATCH', '/unified/workspace', { allowed_redirect_origins: DEMO_REDIRECT_ORIGINS })
  step(`redirect origins allowed for the authorization flow: ${DEMO_REDIRECT_ORIGINS.join(', ')}`)

  const connections: { type: string; id: string; read?: string }[] = []
  const oauth: string[] = []
  for (const e of emulators) {
    const type = e.provider.integrationType
    step(`connecting ${type} (emulator at ${e.url})`)
    const body = await call(base, apiKey, 'POST', '/unified/connection', {
      integration_type: type,
      auth: e.auth,
    })
    const read = demoRead(e.provider, body.id!)
    connections.push({ type, id: body.id!, read: read && `${read.path}?${new URLSearchParams(read.query)}` })
    if (e.oauthApp) {
      const app = await e.oauthApp(`${base}/unified/integration/oauth/callback`)
      await call(base, apiKey, 'PUT', `/unified/workspace/oauth_app/${type}`, app)
      oauth.push(type)
    }
  }
  step(`OAuth apps registered with the emulated providers: ${oauth.join(', ')}`)

  const first = connections[0]!
  const posthog = emulators.find((e) => e.provider.integrationType === 'posthog')
  const H = '-H "authorization: Bearer $UNIGATE_KEY"'
  console.log(`
Unigate is running at ${base}   (API reference: ${base}/docs)

export UNIGATE_KEY='${apiKey}'
export UNIGATE_WORKSPACE=${workspace.id}
export UNIGATE_SECRET='${secret}'   # verifies webhook sig256 and the redirect sig
export CONN=${first.id}   # ${first.type}
${
  posthog
    ? `export POSTHOG_URL=${posthog.url} POSTHOG_TOKEN='${String(posthog.auth.token)}'   # the emulated PostHog
`
    : ''
}
Connections:
${connections.map((c) => `  ${c.type}: ${c.id}`).join('\n')}

Try:
curl -s ${H} '${base}/unified/integration?summary=true'
curl -s ${H} '${base}/unified/connection'
curl -s ${H} "${base}/analytics/$CONN/property"
curl -s ${H} "${base}/analytics/$CONN/event?limit=5&fields=id,name,event_type,created_at"
curl -s ${H} "${base}/analytics/$CONN/event?limit=2&fields=id,name,raw"
curl -s ${H} "${base}/analytics/$CONN/session?limit=3"
curl -s ${H} "${base}/analytics/$CONN/visitor?limit=3&fields=id,email,total_events"
curl -s ${H} "${base}/analytics/$CONN/report?start_gte=${dayFromToday(-7)}&end_lt=${dayFromToday(0)}&dimension=DATE"
curl -s ${H} "${base}/passthrough/$CONN/api/users/@me/"

The other integrations:
${connections
  .slice(1)
  .filter((c) => c.read)
  .map((c) => `curl -s ${H} '${base}/${c.read}'`)
  .join('\n')}

Authorize an end user (OAuth against the emulated provider; ${oauth.join(', ')} work the same way):
curl -s "${base}/unified/integration/auth/$UNIGATE_WORKSPACE/googleanalytics?success_redirect=http://localhost/connected&failure_redirect=http://localhost/failed"
  (open the printed address in a browser and allow; you come back to http://localhost/connected?id=<new connection>)

Webhooks to a receiver at ${DEMO_WEBHOOK_RECEIVER} on this machine are allowed:
curl -s ${H} -H 'content-type: application/json' '${base}/unified/webhook' -d '{"connection_id":"'$CONN'","object_type":"analytics_event","event":"created","hook_url":"http://${DEMO_WEBHOOK_RECEIVER}/hook","interval":1}'

Press Ctrl+C to stop.`)

  const stop = async () => {
    await server.close()
    await Promise.all(emulators.map((e) => e.close()))
    await closeSharedEmulators()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((err: unknown) => {
  console.error(`[demo] failed: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
