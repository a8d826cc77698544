import { Type } from '@sinclair/typebox'
import { badRequest } from '../../errors.js'
import { defineIntegration } from '../types.js'
import { verifyCall } from '../verify-answer.js'
import { isTimeZone } from '../zones.js'
import { eventHandlers } from './event.js'
import { AMPLITUDE_REGIONS, amplitudeHosts } from './hosts.js'
import { reportHandlers } from './report.js'
import { visitorHandlers } from './visitor.js'

/**
 * User Search answers `{matches: [{user_id, amplitude_id}], type}`, `type` `nomatch` with no `matches` found
 * (amplitude/amplitude-docs@6e7e48e:content/collections/api/en/dashboard-rest.md, User Search; providers.md
 * Amplitude; emulators/amplitude/routes.ts).
 */
const USER_SEARCH = Type.Object({ matches: Type.Array(Type.Object({})), type: Type.String() })

/**
 * One API key and secret key pair is one Amplitude project, and Amplitude has no project API: there is
 * no property object, and no session object (sessions exist only as an event field).
 */
export default defineIntegration({
  type: 'amplitude',
  name: 'Amplitude',
  categories: ['analytics'],
  description:
    'Amplitude: event export (by upload hour, about 2 hours behind, 365 days at most) and ingestion, visitors seen in the export (30 days by default) or found by User Search, with profiles (anonymous visitors as device:<device_id>), Dashboard REST reports (hours for 7 days at most).',
  webUrl: 'https://amplitude.com',
  apiDocsUrl: 'https://amplitude.com/docs/apis',
  color: '#1E61F0',
  rateLimitDescription:
    'Dashboard REST: cost-based, 5 concurrent; User Activity/Search 360/hour; HTTP V2 30 events/s per device or user.',
  auth: {
    kind: 'api_key',
    fields: [
      { name: 'api_key', label: 'API key', secret: true, required: true },
      { name: 'secret_key', label: 'Secret key', secret: true, required: true },
      {
        name: 'region',
        label: 'Data center',
        secret: false,
        required: false,
        options: AMPLITUDE_REGIONS,
        description: 'us (default) or eu',
      },
      {
        name: 'project_timezone',
        label: 'Project time zone',
        secret: false,
        required: false,
        description:
          "The project's time zone (Settings → Projects), e.g. Europe/Berlin: Dashboard REST counts its days; UTC if empty",
      },
      {
        name: 'api_url',
        label: 'API address override',
        secret: false,
        required: false,
        description: 'One address serving all Amplitude paths (a proxy); leave empty for Amplitude itself',
      },
    ],
  },
  baseUrl: (credentials) => amplitudeHosts(credentials).analytics,
  authHeaders: (c) => ({
    authorization: `Basic ${Buffer.from(`${c.api_key ?? ''}:${c.secret_key ?? ''}`).toString('base64')}`,
  }),
  /**
   * User Search for a user that cannot exist: cheap, and rejects bad keys with 401. Amplitude's API does
   * not tell the project's time zone, so the one given is checked and kept.
   */
  async verify(client, credentials) {
    const zone = credentials.project_timezone || undefined
    if (zone && !isTimeZone(zone)) {
      throw badRequest(`project_timezone: '${zone}' is not an IANA time zone (for example Europe/Berlin)`)
    }
    await verifyCall(
      client,
      {
        path: '/api/2/usersearch',
        baseUrl: amplitudeHosts(credentials).analytics,
        query: { user: 'unigate-credentials-check' },
      },
      USER_SEARCH,
    )
    return { timezone: zone ?? 'UTC' }
  },
  retry: { on: [429, 500, 502, 503, 504], afterHeaders: ['retry-after'] },
  objects: {
    // Exported events never change, and appear about 2-3 hours after they happened (export.md).
    analytics_event: {
      ...eventHandlers,
      defaultWindowDays: 30,
      anonymousVisitor: true,
      recordsNeverChange: true,
    },
    // Without `query`, the users the export shows in the last 30 days (seen-visitors.ts).
    analytics_visitor: { ...visitorHandlers, defaultWindowDays: 30 },
    analytics_report: reportHandlers,
  },
})
