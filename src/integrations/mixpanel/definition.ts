import { Type } from '@sinclair/typebox'
import { ProviderError } from '../../errors.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { eventHandlers } from './event.js'
import { MIXPANEL_REGIONS, mixpanelHosts } from './hosts.js'
import { meRequest, projectsIn, propertyHandlers } from './property.js'
import { reportHandlers } from './report.js'
import { visitorHandlers } from './visitor.js'

/**
 * `GET /api/app/me` answers `{status: "ok", results: {..., projects: {<id>: {name, timezone, ...}}}}`: undocumented
 * (mixpanel/docs@ba22906:reference/service-accounts.mdx only calls it), the shape Mixpanel's own clients read
 * (providers.md 3.3; emulators/mixpanel/routes-query.ts). `results.projects` is what verification reads.
 */
const NULLABLE_TEXT = Type.Union([Type.String(), Type.Null()])
const ME = Type.Object({
  results: Type.Object({
    projects: Type.Record(
      Type.String(),
      // Null where a project has none: the endpoint is undocumented, so only the types are held to.
      Type.Object({ name: Type.Optional(NULLABLE_TEXT), timezone: Type.Optional(NULLABLE_TEXT) }),
    ),
  }),
})

export default defineIntegration({
  type: 'mixpanel',
  name: 'Mixpanel',
  categories: ['analytics'],
  description:
    "Mixpanel: raw event export and import, user profiles, event reports in the project's time zone (no hourly unique users; with no event named, EVENTS counts every event of the last 31 days). Profile writes answer once Mixpanel shows them (it applies them asynchronously, within a minute). No sessions API.",
  webUrl: 'https://mixpanel.com',
  apiDocsUrl: 'https://developer.mixpanel.com/reference/overview',
  color: '#7856FF',
  rateLimitDescription:
    'Query API 60 queries/hour and 5 concurrent per project; Export 60/hour, 3/second; ingestion 2 GB/minute.',
  auth: {
    kind: 'api_key',
    fields: [
      { name: 'username', label: 'Service account username', secret: false, required: true },
      { name: 'secret', label: 'Service account secret', secret: true, required: true },
      { name: 'project_id', label: 'Project id', secret: false, required: true },
      {
        name: 'project_token',
        label: 'Project token',
        secret: true,
        required: true,
        description: 'Project settings → Access keys; needed to write user profiles',
      },
      {
        name: 'region',
        label: 'Data residency',
        secret: false,
        required: false,
        options: MIXPANEL_REGIONS,
        description: 'us (default), eu or in',
      },
      {
        name: 'project_created_before_2023',
        label: 'Project created before 2023-01-01',
        secret: false,
        required: false,
        options: ['no', 'yes'],
        description:
          "yes if the project predates 2023: Mixpanel then stores event times in the project's time zone",
      },
      {
        name: 'api_url',
        label: 'API address override',
        secret: false,
        required: false,
        description: 'One address serving all Mixpanel paths (a proxy); leave empty for Mixpanel itself',
      },
    ],
  },
  baseUrl: (credentials) => mixpanelHosts(credentials).query,
  authHeaders: (c) => ({
    authorization: `Basic ${Buffer.from(`${c.username ?? ''}:${c.secret ?? ''}`).toString('base64')}`,
  }),
  async verify(client, credentials) {
    const me = await verifyCall(client, meRequest(credentials), ME)
    const project = projectsIn(me).find(([id]) => id === credentials.project_id)
    if (!project) {
      throw new ProviderError(403, `the service account cannot see project ${credentials.project_id}`)
    }
    const [, info] = project
    return {
      project_name: info.name ?? undefined,
      timezone: info.timezone ?? undefined,
    }
  },
  // Mixpanel sends no Retry-After; its docs ask for exponential backoff on 429, 502 and 503.
  retry: { on: [429, 502, 503], afterHeaders: ['retry-after'] },
  objects: {
    analytics_property: propertyHandlers,
    analytics_event: { ...eventHandlers, defaultWindowDays: 30 },
    analytics_visitor: visitorHandlers,
    // Without `query`, EVENTS counts every event Mixpanel names for the last 31 days (report.ts).
    analytics_report: reportHandlers,
  },
})
