import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_API_KEY, DEFAULT_SECRET_KEY, startAmplitudeEmulator } from '../emulators/amplitude/index.js'
import {
  DEFAULT_BAMBOOHR_API_KEY,
  DEFAULT_BAMBOOHR_DOMAIN,
  startBamboohrEmulator,
} from '../emulators/bamboohr/index.js'
import { DEFAULT_FATHOM_API_KEY, startFathomEmulator } from '../emulators/fathom/index.js'
import { startGa4Emulator } from '../emulators/ga4/index.js'
import {
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  startGreenhouseEmulator,
} from '../emulators/greenhouse/index.js'
import { DEFAULT_GUSTO_CLIENT, startGustoEmulator } from '../emulators/gusto/index.js'
import { DEFAULT_HUBSPOT_TOKEN, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { DEFAULT_LEVER_API_KEY, startLeverEmulator } from '../emulators/lever/index.js'
import { DEFAULT_MATOMO_TOKEN, startMatomoEmulator } from '../emulators/matomo/index.js'
import { startMixpanelEmulator } from '../emulators/mixpanel/index.js'
import { DEFAULT_PIPEDRIVE_TOKEN, startPipedriveEmulator } from '../emulators/pipedrive/index.js'
import { DEFAULT_PLAUSIBLE_API_KEY, startPlausibleEmulator } from '../emulators/plausible/index.js'
import { DEFAULT_PERSONAL_API_KEY, startPosthogEmulator } from '../emulators/posthog/index.js'
import { DEFAULT_UMAMI_API_KEY, startUmamiEmulator } from '../emulators/umami/index.js'
import { startYoutubeEmulator } from '../emulators/youtube/index.js'
import { checkedWebhooks } from './support/checked-webhooks.js'
import { type Harness, startHarness } from './support/harness.js'
import { createConnection } from './support/integration-suite.js'
import { mixpanelEmulatorAuth } from './support/mixpanel.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>

/** What every emulator here offers a test: the requests it received. */
interface Recording {
  requests(): readonly unknown[]
  clearRequests(): void
  close(): Promise<void>
}

const GOOGLE = 'https://www.googleapis.com/auth/'

/**
 * The rules a connector's list keeps from the query alone (a filter value of the wrong shape, a status or
 * type the provider cannot list by, a search it refuses) are its handler's `checkList`: a virtual webhook
 * whose checks would all be refused so is answered that 400 when it is made, with nothing stored and
 * nothing asked of the provider, and the plain list answers the 400 it always did (README, "Webhooks").
 */
describe("webhooks refused with the connector's own list rules", () => {
  let h: Harness
  let receiver: WebhookReceiver
  const emulators: Record<string, Recording> = {}
  const connections: Record<string, string> = {}

  beforeAll(async () => {
    h = await startHarness('sqlite')
    receiver = await startWebhookReceiver(h.secret)
    const hubspot = await startHubspotEmulator({ seed: 9, contacts: 20, searchPerSecond: 1000 })
    const pipedrive = await startPipedriveEmulator()
    const greenhouse = await startGreenhouseEmulator({ seed: 4, candidates: 10, rateLimit: 1000 })
    const lever = await startLeverEmulator()
    const bamboohr = await startBamboohrEmulator({ seed: 7, employees: 5 })
    const gusto = await startGustoEmulator()
    const posthog = await startPosthogEmulator({ seed: 3, size: { events: 20 } })
    const amplitude = await startAmplitudeEmulator({ seed: 9, users: 5, events: 20 })
    const matomo = await startMatomoEmulator({ seed: 3, sites: 2, visitsPerSite: 5 })
    const umami = await startUmamiEmulator({ seed: 7, websites: 2, sessions: 5 })
    const plausible = await startPlausibleEmulator()
    const fathom = await startFathomEmulator()
    const mixpanel = await startMixpanelEmulator({ seed: 5, events: 20, profiles: 5 })
    const ga4 = await startGa4Emulator({ seed: 3, accounts: 1, propertiesPerAccount: 2 })
    const youtube = await startYoutubeEmulator({ seed: 5 })
    Object.assign(emulators, {
      hubspot,
      pipedrive,
      greenhouse,
      lever,
      bamboohr,
      gusto,
      posthog,
      amplitude,
      matomo,
      umami,
      plausible,
      fathom,
      mixpanel,
      googleanalytics: ga4,
      youtube,
    })
    const tokens = gusto.oauth.issueTokens()
    const auths: Record<string, Rec> = {
      hubspot: { token: DEFAULT_HUBSPOT_TOKEN, api_url: hubspot.url },
      pipedrive: { api_token: DEFAULT_PIPEDRIVE_TOKEN, api_url: pipedrive.url },
      greenhouse: {
        client_id: DEFAULT_GREENHOUSE_CLIENT_ID,
        client_secret: DEFAULT_GREENHOUSE_CLIENT_SECRET,
        api_url: `${greenhouse.url}/v3`,
        token_url: `${greenhouse.url}/token`,
      },
      lever: { api_key: DEFAULT_LEVER_API_KEY, api_url: `${lever.url}/v1` },
      bamboohr: {
        api_key: DEFAULT_BAMBOOHR_API_KEY,
        company_domain: DEFAULT_BAMBOOHR_DOMAIN,
        api_url: `${bamboohr.url}/api/gateway.php`,
      },
      gusto: {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        client_id: DEFAULT_GUSTO_CLIENT.clientId,
        client_secret: DEFAULT_GUSTO_CLIENT.clientSecret,
        api_url: gusto.url,
      },
    }
    Object.assign(auths, {
      posthog: { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url },
      amplitude: { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, api_url: amplitude.url },
      matomo: { token_auth: DEFAULT_MATOMO_TOKEN, api_url: matomo.url },
      umami: { api_key: DEFAULT_UMAMI_API_KEY, hosting: 'cloud', api_url: `${umami.url}/v1` },
      plausible: { api_key: DEFAULT_PLAUSIBLE_API_KEY, api_url: plausible.url },
      fathom: { api_key: DEFAULT_FATHOM_API_KEY, api_url: `${fathom.url}/v1` },
      mixpanel: mixpanelEmulatorAuth(mixpanel),
      googleanalytics: {
        api_url: ga4.url,
        access_token: ga4.authority.issueTokens({ scopes: [`${GOOGLE}analytics.readonly`] }).access_token,
      },
      youtube: {
        api_url: youtube.url,
        access_token: youtube.authority.issueTokens({
          scopes: [`${GOOGLE}youtube.readonly`, `${GOOGLE}yt-analytics.readonly`],
        }).access_token,
      },
    })
    for (const [type, auth] of Object.entries(auths)) {
      connections[type] = await createConnection(h, { integration_type: type, auth })
    }
  })
  afterAll(async () => {
    await h?.close()
    await receiver?.close()
    for (const emu of Object.values(emulators)) await emu.close()
  })

  const { create, webhooksOf } = checkedWebhooks(
    () => h,
    () => receiver.url,
  )

  const cases: {
    integration: string
    objectType: string
    path: string
    filters: Record<string, string>
    message: string
  }[] = [
    {
      integration: 'hubspot',
      objectType: 'crm_contact',
      path: 'crm/{c}/contact',
      filters: { company_id: 'acme' },
      message: "company_id: 'acme' is not a HubSpot id; HubSpot ids are whole numbers",
    },
    {
      integration: 'hubspot',
      objectType: 'crm_contact',
      path: 'crm/{c}/contact',
      filters: { user_id: '12', deal_id: 'big-deal' },
      message: "deal_id: 'big-deal' is not a HubSpot id; HubSpot ids are whole numbers",
    },
    {
      integration: 'pipedrive',
      objectType: 'crm_contact',
      path: 'crm/{c}/contact',
      filters: { user_id: 'me' },
      message: "user_id: 'me' is not a Pipedrive id; Pipedrive ids are whole numbers",
    },
    {
      integration: 'greenhouse',
      objectType: 'ats_application',
      path: 'ats/{c}/application',
      filters: { job_id: 'engineer' },
      message: "job_id: 'engineer' is not a Greenhouse id; Greenhouse ids are whole numbers",
    },
    {
      integration: 'greenhouse',
      objectType: 'ats_application',
      path: 'ats/{c}/application',
      filters: { status: 'FIRST_INTERVIEW' },
      message:
        "status: Greenhouse can list applications by HIRED or REJECTED only; 'FIRST_INTERVIEW' is a stage of an active application there",
    },
    {
      integration: 'lever',
      objectType: 'ats_application',
      path: 'ats/{c}/application',
      filters: { status: 'ONSITE' },
      message: "status: 'ONSITE' is not an application status; use ",
    },
    {
      integration: 'bamboohr',
      objectType: 'hris_group',
      path: 'hris/{c}/group',
      filters: { type: 'TEAM' },
      message: "type: 'TEAM' is not a BambooHR group type; use DEPARTMENT or DIVISION",
    },
    {
      integration: 'gusto',
      objectType: 'hris_group',
      path: 'hris/{c}/group',
      filters: { type: 'SQUAD' },
      message: "type: 'SQUAD' is not a group type; use one of ",
    },
    {
      integration: 'posthog',
      objectType: 'analytics_event',
      path: 'analytics/{c}/event',
      filters: { type: 'NOPE' },
      message: "type: 'NOPE' is not an event type; use one of ",
    },
    {
      integration: 'posthog',
      objectType: 'analytics_session',
      path: 'analytics/{c}/session',
      filters: { property_id: 'web' },
      message: "property_id: 'web' is not a PostHog project id (a number)",
    },
    {
      integration: 'posthog',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { dimension: 'HOUR', start_gte: '2020-01-01T00:00:00Z' },
      message: 'start_gte/end_lt: PostHog answers at most ',
    },
    {
      integration: 'amplitude',
      objectType: 'analytics_event',
      path: 'analytics/{c}/event',
      filters: { type: 'NOPE' },
      message: "type: 'NOPE' is not an event type; use one of ",
    },
    {
      integration: 'amplitude',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { dimension: 'DAY_OF_WEEK' },
      message: 'Amplitude (amplitude) cannot break reports down by DAY_OF_WEEK',
    },
    {
      integration: 'matomo',
      objectType: 'analytics_event',
      path: 'analytics/{c}/event',
      filters: { property_id: '1', visitor_id: 'someone' },
      message: "visitor_id: 'someone' is not a Matomo visitor id (<idSite>:<16 hex characters>)",
    },
    {
      integration: 'matomo',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { property_id: '1', start_gte: '2024-05-01T10:00:00Z' },
      message: "start_gte: Matomo reports whole days in the site's timezone; give a date (YYYY-MM-DD)",
    },
    {
      integration: 'umami',
      objectType: 'analytics_event',
      path: 'analytics/{c}/event',
      filters: { session_id: 'abc' },
      message: "session_id: 'abc' is not an Umami session id of this API (<website>:<session>)",
    },
    {
      integration: 'umami',
      objectType: 'analytics_session',
      path: 'analytics/{c}/session',
      filters: { visitor_id: 'someone' },
      message: 'Umami lists sessions per website: give property_id',
    },
    {
      integration: 'umami',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { property_id: 'website', dimension: 'DATE', type: 'SESSIONS' },
      message: 'Umami (umami) cannot report SESSIONS by DATE; available there: PAGE_VIEWS, USERS',
    },
    {
      integration: 'plausible',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { property_id: 'acme.com', dimension: 'DAY_OF_WEEK' },
      message: 'Plausible (plausible) cannot break reports down by DAY_OF_WEEK',
    },
    {
      integration: 'fathom',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { property_id: 'SITE', type: 'PAGE_VIEWS,CONVERSIONS' },
      message: 'Fathom reports pageview and event aggregates separately: ask for one kind per request',
    },
    {
      integration: 'mixpanel',
      objectType: 'analytics_event',
      path: 'analytics/{c}/event',
      filters: { type: 'NOPE' },
      message: "type: 'NOPE' is not an event type; use one of ",
    },
    {
      integration: 'mixpanel',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { dimension: 'HOUR', type: 'USERS' },
      message: 'Mixpanel (mixpanel) cannot count unique USERS by HOUR; use DATE, WEEK or MONTH',
    },
    {
      integration: 'googleanalytics',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { property_id: '5', start_gte: '2024-05-01T10:00:00Z' },
      message: "start_gte: Google Analytics 4 reports whole days in the property's time zone",
    },
    {
      integration: 'youtube',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: { property_id: 'my-channel' },
      message: "property_id: 'my-channel' is not a YouTube channel id (UC followed by 22 characters)",
    },
  ]

  for (const c of cases) {
    it(`refuses a ${c.integration} ${c.objectType} webhook with ${JSON.stringify(c.filters)}, with the list's own answer, asking nothing of ${c.integration}`, async () => {
      const connection = connections[c.integration]!
      const emu = emulators[c.integration]!
      emu.clearRequests()
      const listed = await h.api<Rec>('GET', `/${c.path.replace('{c}', connection)}`, { query: c.filters })
      expect(listed.status).toBeGreaterThanOrEqual(400)
      expect(String(listed.body.message).startsWith(c.message), String(listed.body.message)).toBe(true)
      expect(emu.requests()).toEqual([])
      for (const includeAll of [false, true]) {
        const res = await create(connection, c.objectType, c.filters, includeAll)
        expect(res.status).toBe(listed.status)
        expect(res.body).toEqual(listed.body)
      }
      expect(await webhooksOf(connection)).toEqual([])
      expect(emu.requests()).toEqual([])
    })
  }

  it('still makes a webhook whose filters the connector can list by', async () => {
    const made = await create(connections.hubspot!, 'crm_contact', { company_id: '101' }, false)
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const lever = await create(connections.lever!, 'ats_application', { status: 'hired' }, false)
    expect(lever.status, JSON.stringify(lever.body)).toBe(200)
  })
})
