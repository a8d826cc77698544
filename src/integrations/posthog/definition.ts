import { type Static, Type } from '@sinclair/typebox'
import { type AuthField, defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { eventHandlers } from './events.js'
import { posthogExternalTools } from './external-tools.js'
import { apiBaseUrl, authHeaders } from './hosts.js'
import { posthogEventPushes } from './native-webhooks.js'
import { posthogOAuth2 } from './oauth.js'
import { propertyHandlers } from './properties.js'
import { reportHandlers } from './reports.js'
import { sessionHandlers } from './sessions.js'
import { visitorHandlers } from './visitors.js'

const TEAM = Type.Object({
  id: Type.Integer(),
  project_id: Type.Optional(Type.Integer()),
  api_token: Type.Optional(Type.String()),
})

/**
 * `GET /api/users/@me/`: `UserSerializer` always sends the user's `uuid` and its current `organization`
 * (`MeOrganizationSerializer`, null for a user without one), with its `teams`; `team` is the current team or
 * null (PostHog/posthog@master:posthog/api/user.py; teams: PostHog/posthog@5debee2fd96b:posthog/api/shared.py
 * `TeamBasicSerializer`; emulators/posthog/routes/me.ts). `team` may be missing on an older self-hosted PostHog.
 */
const ME = Type.Object({
  uuid: Type.String(),
  organization: Type.Union([
    Type.Null(),
    Type.Object({ id: Type.String(), teams: Type.Optional(Type.Array(TEAM)) }),
  ]),
  team: Type.Optional(Type.Union([Type.Null(), TEAM])),
})

/**
 * The default project is the user's current team's project. `/api/projects/{id}/` reads that project's first
 * team, whose id is the project's (requests.ts `captureTeam`), which may not be the current team (another
 * environment): so capture keeps that first team's key and id (`project_api_key`, `team_id`), found among the
 * organization's teams; without it (an older PostHog's `@me`) the key is read from the project when needed.
 */
function defaultProjectOf(me: Static<typeof ME>): Record<string, string | undefined> {
  const current = me.team ?? undefined
  if (!current) return {}
  const projectId = current.project_id ?? current.id
  const first = [current, ...(me.organization?.teams ?? [])].find((t) => t.id === projectId)
  return {
    project_id: String(projectId),
    project_api_key: first?.api_token,
    team_id: first?.api_token ? String(first.id) : undefined,
  }
}

/** Where the account lives: the same for a personal key and an OAuth token. */
const SHARED_FIELDS: readonly AuthField[] = [
  {
    name: 'region',
    label: 'Region',
    secret: false,
    required: false,
    options: ['us', 'eu'],
    description: 'PostHog Cloud region; us when not given. Ignored when api_url is set.',
  },
  {
    name: 'api_url',
    label: 'API URL',
    secret: false,
    required: false,
    description: 'Base URL of a self-hosted PostHog (or an emulator), serving both the API and ingestion.',
  },
]

export default defineIntegration({
  type: 'posthog',
  name: 'PostHog',
  categories: ['analytics'],
  description:
    'Product analytics: projects, events, sessions, persons and HogQL reports from PostHog Cloud (US or EU) or a self-hosted instance.',
  webUrl: 'https://posthog.com',
  apiDocsUrl: 'https://posthog.com/docs/api',
  color: '#1D4AFF',
  rateLimitDescription:
    'Per personal key: HogQL queries 120/h (240/min and 2400/h with the API queries add-on), at most 3 running per project at once (Unigate queues its own), a query stopped after 60 s; persons 180/min and 1200/h; other endpoints 480/min and 4800/h. Lists and reports without start_gte cover the last 30 days.',
  auth: {
    kind: 'api_key',
    fields: [
      {
        name: 'token',
        label: 'Personal API key',
        secret: true,
        required: true,
        description:
          'A personal API key (phx_…) with read and write scopes for projects, persons and queries.',
      },
      ...SHARED_FIELDS,
    ],
  },
  // Or OAuth, when the workspace configured a PostHog OAuth app (the auth endpoint then prefers it).
  oauth: posthogOAuth2(SHARED_FIELDS),
  baseUrl: apiBaseUrl,
  authHeaders,
  verify: async (client) => {
    const me = await verifyCall(client, { path: '/api/users/@me/' }, ME)
    return { organization_id: me.organization?.id, ...defaultProjectOf(me) }
  },
  // Not 504: PostHog answers it for a query stopped at its 60 s execution limit (ClickHouseQueryTimeOut,
  // posthog/exceptions.py), which the same query would hit again; retrying would only triple the load.
  retry: { on: [429, 502, 503], afterHeaders: ['retry-after'] },
  objects: {
    analytics_property: propertyHandlers,
    // Captured events can also be pushed (native webhooks) through a CDP webhook destination.
    analytics_event: { ...eventHandlers, nativeWebhooks: posthogEventPushes, anonymousVisitor: true },
    analytics_session: sessionHandlers,
    analytics_visitor: visitorHandlers,
    analytics_report: reportHandlers,
  },
  externalTools: posthogExternalTools,
})
