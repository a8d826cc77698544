import type { ConnectionResolver, ResolvedConnection, StoredConnection } from '../../src/connections/index.js'
import { CursorBank } from '../../src/integrations/cursors.js'
import { ProviderClient } from '../../src/integrations/http-client.js'
import type { IntegrationDefinition, ListQuery } from '../../src/integrations/types.js'
import type { UnifiedRecord } from '../../src/models/index.js'
import { ProviderTransport } from '../../src/outbound/index.js'

const visitors: UnifiedRecord[] = [
  {
    id: 'v1',
    email: 'ada@example.com',
    name: 'Ada Lovelace',
    country: 'GB',
    total_events: 3,
    raw: {
      distinct_id: 'v1',
      properties: { email: 'ada@example.com', name: 'Ada Lovelace', $geoip_city_name: 'London', plan: 'pro' },
      $ip: '81.2.69.160',
    },
  },
]

/**
 * A small integration with in-memory data: events can be listed (filter property_id only), read and
 * created; visitors support every operation. No provider call is made.
 */
export const fixtureIntegration: IntegrationDefinition = {
  type: 'fixture',
  name: 'Fixture',
  categories: ['analytics'],
  description: 'test integration',
  webUrl: 'https://fixture.example',
  apiDocsUrl: 'https://fixture.example/docs',
  auth: {
    kind: 'api_key',
    fields: [
      { name: 'token', label: 'Token', secret: true, required: true },
      { name: 'api_url', label: 'API address', secret: false, required: false },
    ],
  },
  baseUrl: (c) => c.api_url ?? 'http://127.0.0.1:9',
  authHeaders: (c) => ({ authorization: `Bearer ${c.token ?? ''}` }),
  verify: async () => ({ project_id: '42' }),
  retry: { on: [], afterHeaders: [] },
  objects: {
    analytics_event: {
      listParams: ['updated_gte'],
      filters: ['property_id'],
      async list(_ctx, q: ListQuery) {
        const all = [
          { id: 'e1', name: '$pageview', property_id: 'p1' },
          { id: 'e2', name: 'signup', property_id: 'p2' },
        ]
        return all
          .filter((e) => !q.filters.property_id || e.property_id === q.filters.property_id)
          .slice(q.offset, q.offset + q.limit)
      },
      async get(_ctx, id) {
        return { id, name: '$pageview' }
      },
      async create(_ctx, body) {
        return { id: 'e-new', ...body }
      },
    },
    analytics_visitor: {
      listParams: [],
      filters: [],
      list: async () => visitors,
      get: async (_ctx, id) => visitors.find((v) => v.id === id) ?? visitors[0]!,
      create: async (_ctx, body) => ({ id: 'v-new', ...body }),
      update: async (_ctx, id, body) => ({ id, ...body }),
      patch: async (_ctx, id, body) => ({ id, ...body }),
      remove: async () => undefined,
    },
  },
  externalTools: [
    {
      name: 'list_cohorts',
      description: 'List cohorts.',
      method: 'GET',
      path: '/api/projects/{project_id}/cohorts/',
      access: 'read',
      objects: ['analytics_visitor'],
      parameters: [{ name: 'limit', in: 'query', type: 'integer', description: 'Page size.' }],
    },
  ],
}

export function fixtureConnection(
  permissions: string[],
  integration: IntegrationDefinition = fixtureIntegration,
): ResolvedConnection {
  const connection: StoredConnection = {
    id: 'cn_na_fixture',
    workspace_id: 'ws_1',
    integration_type: integration.type,
    categories: [...integration.categories],
    permissions,
    environment: 'Production',
    is_paused: false,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    credentials: { token: 'secret' },
    settings: { project_id: '42' },
  }
  const client = new ProviderClient({
    baseUrl: 'http://127.0.0.1:9',
    authHeaders: {},
    retry: { on: [], afterHeaders: [] },
    timeoutMs: 1000,
    maxRetries: 0,
    maxRetryWaitMs: 0,
    transport: new ProviderTransport({
      allowAddresses: ['loopback'],
      timeoutMs: 1000,
      maxBodyBytes: 32 * 1024 * 1024,
      answerDeadlineMs: 60_000,
      operationDeadlineMs: 600_000,
      connectionConcurrency: 8,
      connectionQueue: 64,
      workspaceConcurrency: 256,
      workspaceQueue: 1024,
      heapShedPercent: 75,
    }),
  })
  return { connection, integration, client }
}

/** The healthy fixture connection never needs the store. */
export const noStoreResolver = {
  cursors: new CursorBank(),
  markHealthyIfNeeded: async () => undefined,
  markUnhealthy: async () => undefined,
} as unknown as ConnectionResolver

export const ALL_FIXTURE_PERMISSIONS = [
  'analytics_event_read',
  'analytics_event_write',
  'analytics_visitor_read',
  'analytics_visitor_write',
]
