import ga4 from '../../src/integrations/ga4/definition.js'
import { defineIntegration, type IntegrationDefinition } from '../../src/integrations/types.js'

/**
 * A PostHog stand-in for the authorization tests while src/integrations/posthog is being written: the
 * same API-key auth and verification call (`GET /api/users/@me/` on the PostHog emulator). The real
 * definition replaces it as soon as it exists.
 */
const posthogStandIn = defineIntegration({
  type: 'posthog',
  name: 'PostHog',
  categories: ['analytics'],
  description: 'PostHog (authorization tests)',
  webUrl: 'https://posthog.com',
  apiDocsUrl: 'https://posthog.com/docs/api',
  color: '#1D4AFF',
  auth: {
    kind: 'api_key',
    fields: [
      { name: 'token', label: 'Personal API key', secret: true, required: true, description: 'phx_...' },
      { name: 'api_url', label: 'PostHog address', secret: false, required: false },
    ],
  },
  baseUrl: (c) => c.api_url ?? 'https://us.posthog.com',
  authHeaders: (c) => ({ authorization: `Bearer ${c.token}` }),
  verify: async (client) => {
    const me = await client.json<{ email?: string }>({ path: '/api/users/@me/' })
    return { email: me.email }
  },
  retry: { on: [429, 502, 503, 504], afterHeaders: ['retry-after'] },
  // Enough for permissions to exist; the real definition reads events from the emulator.
  objects: { analytics_event: { list: async () => [], listParams: [], filters: [] } },
})

async function realPosthog(): Promise<IntegrationDefinition | undefined> {
  const path = '../../src/integrations/posthog/definition.js'
  try {
    return ((await import(/* @vite-ignore */ path)) as { default: IntegrationDefinition }).default
  } catch {
    return undefined
  }
}

/** The registry the authorization tests run with: the real one, plus GA4 and PostHog if not yet registered. */
export async function authTestRegistry(original: readonly IntegrationDefinition[]) {
  const extra = [ga4, (await realPosthog()) ?? posthogStandIn].filter(
    (e) => !original.some((o) => o.type === e.type),
  )
  const all = [...original, ...extra]
  const byType = new Map(all.map((i) => [i.type, i]))
  return { INTEGRATIONS: all, integrationOf: (type: string) => byType.get(type) }
}
