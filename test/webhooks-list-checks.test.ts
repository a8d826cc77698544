import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AmplitudeEmulator,
  DEFAULT_API_KEY,
  DEFAULT_SECRET_KEY,
  startAmplitudeEmulator,
} from '../emulators/amplitude/index.js'
import { DEFAULT_MATOMO_TOKEN, type MatomoEmulator, startMatomoEmulator } from '../emulators/matomo/index.js'
import { DEFAULT_UMAMI_API_KEY, startUmamiEmulator, type UmamiEmulator } from '../emulators/umami/index.js'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { createConnection } from './support/integration-suite.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>
interface WebhookView {
  id: string
  interval: number
  filters?: Record<string, string>
  checked_at?: string
  is_healthy: boolean
}

const DAY_MS = 86_400_000
/** A view-only Matomo token with access to site 1 only: a connection of one site. */
const ONE_SITE_TOKEN = 'beef0000beef0000beef0000beef0000'
/** Long enough that no check happens on its own during a test: checks come from the trigger endpoint. */
const NEVER = 100_000
/** Where Amplitude's 365-day message names the earliest instant allowed, which moves with the clock. */
const INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g

/**
 * A webhook is refused with the 400 its checks' lists would answer (README, "Webhooks"): the same checks as a
 * list, through the same code, so nothing is stored that could only fail at every check.
 */
describe('webhooks whose checks could never list', () => {
  let h: Harness
  let receiver: WebhookReceiver
  let amplitude: AmplitudeEmulator
  let matomo: MatomoEmulator
  let umami: UmamiEmulator
  let amp: string
  let sites: string
  let oneSite: string
  let websites: string

  beforeAll(async () => {
    amplitude = await startAmplitudeEmulator({ seed: 9, users: 5, events: 40 })
    matomo = await startMatomoEmulator({
      seed: 3,
      sites: 3,
      visitsPerSite: 5,
      viewTokens: { [ONE_SITE_TOKEN]: ['1'] },
    })
    umami = await startUmamiEmulator({ seed: 7, websites: 3, sessions: 5 })
    // Minutes as long as they are, so an `interval` spans the time it says.
    h = await startHarness('sqlite', { webhooks: { ...testConfig('sqlite').webhooks, minuteMs: 60_000 } })
    receiver = await startWebhookReceiver(h.secret)
    amp = await createConnection(h, {
      integration_type: 'amplitude',
      auth: { api_key: DEFAULT_API_KEY, secret_key: DEFAULT_SECRET_KEY, api_url: amplitude.url },
    })
    sites = await createConnection(h, {
      integration_type: 'matomo',
      auth: { token_auth: DEFAULT_MATOMO_TOKEN, api_url: matomo.url },
    })
    oneSite = await createConnection(h, {
      integration_type: 'matomo',
      auth: { token_auth: ONE_SITE_TOKEN, api_url: matomo.url },
    })
    websites = await createConnection(h, {
      integration_type: 'umami',
      auth: { api_key: DEFAULT_UMAMI_API_KEY, hosting: 'cloud', api_url: `${umami.url}/v1` },
    })
  })
  afterAll(async () => {
    await h?.close()
    await receiver?.close()
    await amplitude?.close()
    await matomo?.close()
    await umami?.close()
  })

  const create = (
    connection: string,
    filters: Record<string, string>,
    options: { includeAll?: boolean; interval?: number } = {},
  ) =>
    h.api<Rec>('POST', '/unified/webhook', {
      body: {
        connection_id: connection,
        object_type: 'analytics_event',
        event: 'created',
        hook_url: receiver.url,
        interval: options.interval ?? NEVER,
        filters,
      },
      ...(options.includeAll ? { query: { include_all: 'true' } } : {}),
    })
  const list = (connection: string, query: Record<string, string>) =>
    h.api<Rec>('GET', `/analytics/${connection}/event`, { query })
  const webhooksOf = async (connection: string) =>
    (await h.api<WebhookView[]>('GET', '/unified/webhook', { query: { connection_id: connection } })).body
  const webhook = async (id: string) => (await h.api<WebhookView>('GET', `/unified/webhook/${id}`)).body
  /** Runs one check now and waits until it is committed. */
  const check = async (id: string) => {
    const before = (await webhook(id)).checked_at ?? ''
    expect((await h.api('PUT', `/unified/webhook/${id}/trigger`)).status).toBe(200)
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
      const w = await webhook(id)
      if ((w.checked_at ?? '') > before) return w
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`webhook ${id} was not checked`)
  }
  const created = async (connection: string) =>
    (await h.api<Rec[]>('GET', '/unified/notification')).body.filter(
      (n) => n.event === 'WEBHOOK_CREATED' && n.connection_id === connection,
    )

  it("refuses an Amplitude backfill from further back than the export serves at once, with the list's 400, storing nothing", async () => {
    const startGte = new Date(Date.now() - 400 * DAY_MS).toISOString()
    const listed = await list(amp, { start_gte: startGte })
    expect(listed.status).toBe(400)
    amplitude.clearRequests()
    const res = await create(amp, { start_gte: startGte }, { includeAll: true })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ ...listed.body, message: res.body.message })
    expect(String(res.body.message).replace(INSTANT, '…')).toBe(
      String(listed.body.message).replace(INSTANT, '…'),
    )
    expect(res.body.message).toMatch(/^start_gte: Amplitude exports at most 365 days at once.*or an end_lt$/)
    expect(await webhooksOf(amp)).toEqual([])
    expect(await created(amp)).toEqual([])
    expect(amplitude.requests()).toEqual([])
  })

  it('keeps an Amplitude webhook without backfill whatever the age of start_gte: each check lists only since the previous one', async () => {
    const res = await create(amp, { start_gte: new Date(Date.now() - 400 * DAY_MS).toISOString() })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const id = String(res.body.id)
    await check(id) // the baseline
    amplitude.clearRequests()
    // As many checks as mark a webhook unhealthy when they fail.
    for (let i = 0; i < 3; i++) await check(id)
    expect((await webhook(id)).is_healthy).toBe(true)
    const exported = amplitude.requests().filter((r) => r.path === '/api/2/export')
    expect(exported.length).toBeGreaterThan(0)
    // Each export starts a few hours back (the export delay), never at start_gte.
    const hour = (v: unknown) =>
      Date.parse(String(v).replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)$/, '$1-$2-$3T$4:00:00Z'))
    for (const r of exported) expect(hour(r.query.start)).toBeGreaterThan(Date.now() - DAY_MS)

    // An interval of a year: each check would list what changed over a year and more, which Amplitude does not
    // export at once; the webhook keeps its interval.
    const patched = await h.api<Rec>('PATCH', `/unified/webhook/${id}`, {
      body: { ...(await webhook(id)), interval: 525_600 },
    })
    expect(patched.status).toBe(400)
    expect(patched.body.message).toMatch(
      /^interval: each check lists what changed since the previous check, 525600 minutes before it, and Amplitude refuses that list: updated_gte: Amplitude exports at most 365 days at once/,
    )
    expect((await webhook(id)).interval).toBe(NEVER)
    const year = await create(amp, {}, { interval: 525_600 })
    expect(year.status).toBe(400)
    expect(String(year.body.message).replace(INSTANT, '…')).toBe(
      String(patched.body.message).replace(INSTANT, '…'),
    )
    expect((await webhooksOf(amp)).map((w) => w.id)).toEqual([id])
  })

  it("refuses a Matomo event webhook without property_id on a connection of several sites, with the list's 400", async () => {
    const listed = await list(sites, {})
    expect(listed.status).toBe(400)
    expect(listed.body.message).toBe(
      "property_id is required: Matomo lists events per property; choose one of '1', '2', '3'",
    )
    for (const includeAll of [false, true]) {
      const res = await create(sites, {}, { includeAll })
      expect(res.status).toBe(400)
      expect(res.body).toEqual(listed.body)
    }
    expect(await webhooksOf(sites)).toEqual([])
    expect(await created(sites)).toEqual([])

    // With a site it is made; leaving the site out again is refused, and the webhook keeps its filters.
    const one = await create(sites, { property_id: '2' })
    expect(one.status, JSON.stringify(one.body)).toBe(200)
    // The SDK sends the whole webhook on PATCH.
    const patched = await h.api<Rec>('PATCH', `/unified/webhook/${one.body.id}`, {
      body: { ...one.body, filters: {} },
    })
    expect(patched.status).toBe(400)
    expect(patched.body).toEqual(listed.body)
    expect((await webhook(String(one.body.id))).filters).toEqual({ property_id: '2' })
  })

  it('makes a Matomo event webhook without property_id where the list needs none: the connection has one site', async () => {
    expect((await list(oneSite, {})).status).toBe(200)
    const res = await create(oneSite, {})
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  })

  it("refuses an Umami event webhook without property_id, with the list's 400", async () => {
    const listed = await list(websites, {})
    expect(listed.status).toBe(400)
    expect(listed.body.message).toMatch(
      /^property_id is required: Umami lists events per property; choose one of/,
    )
    const res = await create(websites, {})
    expect(res.status).toBe(400)
    expect(res.body).toEqual(listed.body)
    expect(await webhooksOf(websites)).toEqual([])
  })
})
