import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AmplitudeEmulator,
  DEFAULT_API_KEY,
  DEFAULT_SECRET_KEY,
  startAmplitudeEmulator,
} from '../emulators/amplitude/index.js'
import {
  DEFAULT_FATHOM_API_KEY,
  type FathomEmulator,
  startFathomEmulator,
} from '../emulators/fathom/index.js'
import {
  DEFAULT_PROJECT_ID,
  type MixpanelEmulator,
  startMixpanelEmulator,
} from '../emulators/mixpanel/index.js'
import { checkedWebhooks } from './support/checked-webhooks.js'
import { type Harness, startHarness } from './support/harness.js'
import { createConnection } from './support/integration-suite.js'
import { mixpanelEmulatorAuth } from './support/mixpanel.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>

const DAY_MS = 86_400_000

/**
 * Rules a connector's list keeps that read the connection's stored credentials, settings or the request's raw
 * parameters, but ask the provider nothing: the handler's `checkList` is given them, so a webhook whose every
 * check such a rule would refuse is answered that list's 4xx when it is made, and nothing is stored
 * (README, "Webhooks").
 */
describe("webhooks refused by list rules that read the connection or the list's raw parameters", () => {
  let h: Harness
  let receiver: WebhookReceiver
  let amplitude: AmplitudeEmulator
  let mixpanel: MixpanelEmulator
  let fathom: FathomEmulator
  const connections: Record<string, string> = {}

  beforeAll(async () => {
    h = await startHarness('sqlite')
    receiver = await startWebhookReceiver(h.secret)
    amplitude = await startAmplitudeEmulator({ seed: 9, users: 5, events: 20 })
    mixpanel = await startMixpanelEmulator({ seed: 5, events: 20, profiles: 5 })
    fathom = await startFathomEmulator()
    connections.amplitude = await createConnection(h, {
      integration_type: 'amplitude',
      auth: { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, api_url: amplitude.url },
    })
    connections.mixpanel = await createConnection(h, {
      integration_type: 'mixpanel',
      auth: mixpanelEmulatorAuth(mixpanel),
    })
    connections.fathom = await createConnection(h, {
      integration_type: 'fathom',
      auth: { api_key: DEFAULT_FATHOM_API_KEY, api_url: `${fathom.url}/v1` },
    })
  })
  afterAll(async () => {
    await h?.close()
    await receiver?.close()
    await amplitude?.close()
    await mixpanel?.close()
    await fathom?.close()
  })

  const emulatorOf = (integration: string) =>
    ({ amplitude, mixpanel, fathom })[integration] as {
      requests(): readonly unknown[]
      clearRequests(): void
    }
  const { create, webhooksOf } = checkedWebhooks(
    () => h,
    () => receiver.url,
  )

  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  const cases: {
    title: string
    integration: string
    objectType: string
    path: string
    filters: () => Record<string, string>
    status: number
    message: string
  }[] = [
    {
      title: 'an Amplitude report by DATE from more than 365 days back',
      integration: 'amplitude',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: () => ({ start_gte: day(Date.now() - 400 * DAY_MS) }),
      status: 400,
      message: 'Amplitude reports days for at most 365 days; narrow start_gte/end_lt or use WEEK or MONTH',
    },
    {
      title: 'an Amplitude report by HOUR over more than 7 days',
      integration: 'amplitude',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: () => ({ dimension: 'HOUR', start_gte: day(Date.now() - 10 * DAY_MS) }),
      status: 400,
      message: 'Amplitude reports hours for at most 7 days (168 hours); narrow start_gte/end_lt or use DATE',
    },
    {
      title: 'a Mixpanel report by HOUR over more days than one Query API answer holds',
      integration: 'mixpanel',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: () => ({ dimension: 'HOUR', type: 'EVENTS', start_gte: day(Date.now() - 500 * DAY_MS) }),
      status: 400,
      message: 'start_gte/end_lt: a Mixpanel report by HOUR covers at most 416 days',
    },
    {
      title: "a Mixpanel event webhook naming the connection's own project with an event type that is none",
      integration: 'mixpanel',
      objectType: 'analytics_event',
      path: 'analytics/{c}/event',
      filters: () => ({ property_id: DEFAULT_PROJECT_ID, type: 'NOPE', start_gte: '2024-05-01' }),
      status: 400,
      message: "type: 'NOPE' is not an event type; use one of ",
    },
    {
      title: "a Mixpanel report webhook naming the connection's own project with unique users by hour",
      integration: 'mixpanel',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: () => ({ property_id: DEFAULT_PROJECT_ID, dimension: 'HOUR', type: 'USERS' }),
      status: 501,
      message: 'Mixpanel (mixpanel) cannot count unique USERS by HOUR; use DATE, WEEK or MONTH',
    },
    {
      title: 'a Fathom CONVERSIONS report webhook, which cannot carry the raw entity_name the list needs',
      integration: 'fathom',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: () => ({ property_id: 'SITE', type: 'CONVERSIONS' }),
      status: 400,
      message:
        'Fathom reports CONVERSIONS and REVENUE per event: add raw=entity_name%3D<event name> to the list (a webhook carries no raw parameters: it can watch pageview aggregates only)',
    },
    {
      title: 'a Fathom REVENUE report webhook, which cannot carry the raw entity_name the list needs',
      integration: 'fathom',
      objectType: 'analytics_report',
      path: 'analytics/{c}/report',
      filters: () => ({ property_id: 'SITE', type: 'REVENUE', dimension: 'DATE' }),
      status: 400,
      message:
        'Fathom reports CONVERSIONS and REVENUE per event: add raw=entity_name%3D<event name> to the list (a webhook carries no raw parameters: it can watch pageview aggregates only)',
    },
  ]

  for (const c of cases) {
    it(`refuses ${c.title}, with the list's own answer, storing nothing`, async () => {
      const connection = connections[c.integration]!
      const emu = emulatorOf(c.integration)
      const filters = c.filters()
      const before = await webhooksOf(connection)
      emu.clearRequests()
      const listed = await h.api<Rec>('GET', `/${c.path.replace('{c}', connection)}`, { query: filters })
      expect(listed.status).toBe(c.status)
      expect(String(listed.body.message).startsWith(c.message), String(listed.body.message)).toBe(true)
      for (const includeAll of [false, true]) {
        const res = await create(connection, c.objectType, filters, includeAll)
        expect(res.status, JSON.stringify(res.body)).toBe(c.status)
        expect(res.body).toEqual(listed.body)
      }
      expect(await webhooksOf(connection)).toEqual(before)
      expect(emu.requests()).toEqual([])
    })
  }

  it('still makes a Mixpanel webhook naming another project, whose list answers nothing', async () => {
    const other = { property_id: '999', type: 'NOPE' }
    const listed = await h.api<Rec[]>('GET', `/analytics/${connections.mixpanel}/event`, { query: other })
    expect(listed.status).toBe(200)
    expect(listed.body).toEqual([])
    expect((await create(connections.mixpanel!, 'analytics_event', other, false)).status).toBe(200)
  })

  it('still answers a Fathom CONVERSIONS list given the raw entity_name', async () => {
    const site = fathom.state.orderedSites()[0]?.id as string
    const listed = await h.api('GET', `/analytics/${connections.fathom}/report`, {
      query: { property_id: site, type: 'CONVERSIONS', raw: 'entity_name=Signup' },
    })
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
  })

  it('still makes an Amplitude report webhook by DATE within 365 days', async () => {
    const recent = { start_gte: day(Date.now() - 300 * DAY_MS) }
    const made = await create(connections.amplitude!, 'analytics_report', recent, false)
    expect(made.status, JSON.stringify(made.body)).toBe(200)
  })
})
