import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BamboohrEmulator,
  DEFAULT_BAMBOOHR_API_KEY,
  DEFAULT_BAMBOOHR_DOMAIN,
  startBamboohrEmulator,
} from '../emulators/bamboohr/index.js'
import { DEFAULT_LEVER_API_KEY, type LeverEmulator, startLeverEmulator } from '../emulators/lever/index.js'
import {
  DEFAULT_PIPEDRIVE_TOKEN,
  type PipedriveEmulator,
  startPipedriveEmulator,
} from '../emulators/pipedrive/index.js'
import {
  DEFAULT_PERSONAL_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../emulators/posthog/index.js'
import { providerScopes } from '../src/authorization/scopes.js'
import { leverOAuth2 } from '../src/integrations/lever/oauth.js'
import { type NativeServer, startNativeServer } from './support/native-server.js'
import { checkNow } from './support/native-watch.js'

type Rec = Record<string, unknown>

/** Unigate's provider timeout here, and how late the emulator answers a subscription it made. */
const TIMEOUT_MS = 1_000
const LATE_MS = 2_500

/**
 * A native subscription the provider made while its answer never reached Unigate (Unigate's provider timeout,
 * a lost connection, a 5xx): Unigate looks for the provider's subscriptions at the webhook's receiver address
 * and removes them before answering the error, so nothing keeps calling the address of a webhook that does not
 * exist. A refusal (4xx) made nothing: no look-up.
 */
describe('native subscriptions made without an answer reaching Unigate', () => {
  let server: NativeServer
  let pipedrive: PipedriveEmulator
  let bamboohr: BamboohrEmulator
  let lever: LeverEmulator
  let posthog: PosthogEmulator
  const conn: Record<string, string> = {}
  const logLines: string[] = []

  beforeAll(async () => {
    ;[pipedrive, bamboohr, lever, posthog] = await Promise.all([
      startPipedriveEmulator({ seed: 3, persons: 3, burst: 1000 }),
      // BambooHR and Lever send only to https:// addresses; Unigate listens on plain http on this machine.
      startBamboohrEmulator({ seed: 2, employees: 2, insecureHookUrls: true }),
      startLeverEmulator({ contacts: 2, ratePerSecond: 1000, burst: 1000, webhooks: { plainHttp: true } }),
      startPosthogEmulator({ size: { events: 5 } }),
    ])
    const log = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean))
        done()
      },
    })
    server = await startNativeServer(
      'native-unanswered',
      {},
      { config: { providerTimeoutMs: TIMEOUT_MS, logLevel: 'warn' }, logStream: log },
    )
    conn.pipedrive = await server.connect({
      integration_type: 'pipedrive',
      auth: { api_token: DEFAULT_PIPEDRIVE_TOKEN, api_url: pipedrive.url },
    })
    conn.bamboohr = await server.connect({
      integration_type: 'bamboohr',
      auth: {
        api_key: DEFAULT_BAMBOOHR_API_KEY,
        company_domain: DEFAULT_BAMBOOHR_DOMAIN,
        api_url: `${bamboohr.url}/api/gateway.php`,
      },
    })
    conn.lever = await server.connect({
      integration_type: 'lever',
      auth: { api_key: DEFAULT_LEVER_API_KEY, api_url: `${lever.url}/v1` },
    })
    conn.posthog = await server.connect({
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url },
    })
  })
  afterAll(async () => {
    await server?.close()
    await Promise.all([pipedrive?.close(), bamboohr?.close(), lever?.close(), posthog?.close()])
  })

  const OBJECTS: Record<string, string> = {
    pipedrive: 'crm_contact',
    bamboohr: 'hris_employee',
    lever: 'ats_application',
    posthog: 'analytics_event',
  }
  const subscribe = (provider: string) =>
    server.api<Rec>('POST', '/unified/webhook', {
      connection_id: conn[provider],
      object_type: OBJECTS[provider],
      event: 'created',
      hook_url: server.receiver.url,
      webhook_type: 'native',
    })
  const receiverPrefix = () => `${server.base}/native-webhooks/`

  /** The addresses at Unigate each emulator's subscriptions call. */
  const heldAt = {
    pipedrive: () =>
      [...pipedrive.state.hooks.hooks.values()]
        .map((h) => h.subscriptionUrl)
        .filter((u) => u.startsWith(receiverPrefix())),
    bamboohr: () =>
      [...bamboohr.state.hooks.hooks.values()]
        .map((h) => h.url)
        .filter((u) => u.startsWith(receiverPrefix())),
    lever: () =>
      [...lever.state.webhooks.hooks.values()]
        .map((h) => h.url)
        .filter((u) => u.startsWith(receiverPrefix())),
    posthog: async () => {
      const get = async (path: string) =>
        (
          await fetch(`${posthog.url}/api/projects/@current/hog_functions/${path}`, {
            headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}` },
          })
        ).json() as Promise<Rec>
      const listed = (await get('?limit=1000')).results as { id: string }[]
      const urls = await Promise.all(
        listed.map(async (f) => ((await get(`${f.id}/`)).inputs as { url: { value: string } }).url.value),
      )
      return urls.filter((u) => u.startsWith(receiverPrefix()))
    },
  } as const
  /** The subscribing request of each provider, and its list of subscriptions. */
  const SUBSCRIBE = {
    pipedrive: { method: 'POST', pathPattern: '^/api/v1/webhooks$' },
    bamboohr: { method: 'POST', pathPattern: '/v1/webhooks/?$' },
    lever: { method: 'POST', pathPattern: '^/v1/webhooks$' },
    posthog: { method: 'POST', pathPattern: '/hog_functions/?$' },
  } as const
  const emulatorOf = (provider: keyof typeof SUBSCRIBE) =>
    ({ pipedrive, bamboohr, lever, posthog })[provider] as {
      fault(f: Rec): void
      clearFaults(): void
      requests(): { method: string; path: string; time: string }[]
    }
  const listReads = (provider: keyof typeof SUBSCRIBE, since: number) =>
    emulatorOf(provider)
      .requests()
      .slice(since)
      .filter((r) => r.method === 'GET' && /\/(webhooks|hog_functions)\/?$/.test(r.path))

  for (const provider of ['pipedrive', 'bamboohr', 'lever', 'posthog'] as const) {
    it(`${provider}: a subscription made but answered after the timeout is removed, and the 504 answered`, async () => {
      const emulator = emulatorOf(provider)
      expect(await heldAt[provider]()).toEqual([])
      emulator.fault({ ...SUBSCRIBE[provider], lateAnswerMs: LATE_MS })
      const since = emulator.requests().length
      const made = await subscribe(provider)
      expect(made.status, made.text).toBe(504)
      expect(made.text).toMatch(new RegExp(`did not answer .* within ${TIMEOUT_MS} ms`))
      // The provider made it (the subscribing request was served) and Unigate looked for it by its address.
      expect(
        emulator
          .requests()
          .slice(since)
          .filter((r) => r.method === 'POST').length,
      ).toBeGreaterThan(0)
      expect(listReads(provider, since).length).toBeGreaterThan(0)
      // Nothing left at the provider calling Unigate, even once the late answer has gone out.
      expect(await heldAt[provider]()).toEqual([])
      await new Promise((r) => setTimeout(r, LATE_MS - TIMEOUT_MS + 200))
      expect(await heldAt[provider]()).toEqual([])
      const hooks = await server.api<Rec[]>('GET', '/unified/webhook')
      expect(hooks.body.filter((h) => h.connection_id === conn[provider])).toEqual([])
    })
  }

  it('lever through OAuth, with the scopes Unigate asks: the look-up lists the webhooks and removes what was made', async () => {
    // A token as Lever issues it for Unigate's authorize request (every permission, as when none is named).
    const spec = leverOAuth2([])
    const granted = providerScopes(Object.keys(spec.scopes), spec.scopes, spec.alwaysScopes)
    const token = lever.oauth.issue('unigate', granted).access_token as string
    const connection = await server.connect({
      integration_type: 'lever',
      auth: { access_token: token, api_url: `${lever.url}/v1` },
    })
    lever.fault({ ...SUBSCRIBE.lever, lateAnswerMs: LATE_MS })
    const since = lever.requests().length
    const before = logLines.length
    const made = await server.api<Rec>('POST', '/unified/webhook', {
      connection_id: connection,
      object_type: 'ats_application',
      event: 'created',
      hook_url: server.receiver.url,
      webhook_type: 'native',
    })
    expect(made.status, made.text).toBe(504)
    const lookups = listReads('lever', since) as unknown as { headers: Rec }[]
    expect(lookups.length).toBeGreaterThan(0)
    expect(lookups.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true)
    // Lever answered the look-up (a token without webhooks:read:admin is refused it, and the orphan stays).
    expect(logLines.slice(before).filter((l) => l.includes('may remain'))).toEqual([])
    expect(await heldAt.lever()).toEqual([])
    await new Promise((r) => setTimeout(r, LATE_MS - TIMEOUT_MS + 200))
    expect(await heldAt.lever()).toEqual([])
  })

  it('posthog: the look-up searches destinations by the name given and reads only those it finds', async () => {
    // Destinations of the project that are none of Unigate's: never read one by one, never removed.
    const others: string[] = []
    for (const name of ['Slack alerts', 'Warehouse export', 'Another webhook']) {
      const res = await fetch(`${posthog.url}/api/projects/@current/hog_functions/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'destination',
          template_id: 'template-webhook',
          name,
          inputs: { url: { value: 'https://example.com/hook' } },
        }),
      })
      expect(res.status).toBe(201)
      others.push(((await res.json()) as { id: string }).id)
    }
    posthog.fault({ ...SUBSCRIBE.posthog, lateAnswerMs: LATE_MS })
    const since = posthog.requests().length
    const made = await subscribe('posthog')
    expect(made.status, made.text).toBe(504)
    const sent = posthog.requests().slice(since)
    const name = (sent.find((r) => r.method === 'POST')?.body as { name?: string } | undefined)?.name
    expect(name).toMatch(/^Unigate webhook wh_\S+ \(analytics_event created\)$/)
    const listed = sent.filter((r) => r.method === 'GET' && /\/hog_functions\/?$/.test(r.path))
    expect(listed.map((r) => r.query)).toEqual([
      { type: 'destination', search: name, limit: '100', offset: '0' },
    ])
    // Only the destination found by its name is read whole (for its url), then removed.
    const readOne = sent.filter((r) => r.method === 'GET' && /\/hog_functions\/[^/]+\/?$/.test(r.path))
    expect(readOne).toHaveLength(1)
    expect(readOne.some((r) => others.some((id) => r.path.includes(id)))).toBe(false)
    expect(await heldAt.posthog()).toEqual([])
    for (const id of others) {
      const res = await fetch(`${posthog.url}/api/projects/@current/hog_functions/${id}/`, {
        headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}` },
      })
      expect(res.status).toBe(200)
    }
    await new Promise((r) => setTimeout(r, LATE_MS - TIMEOUT_MS + 200))
  })

  it('a refusal (4xx) made nothing: no look-up reaches the provider', async () => {
    for (const provider of ['pipedrive', 'lever'] as const) {
      const emulator = emulatorOf(provider)
      emulator.fault({ ...SUBSCRIBE[provider], status: 400 })
      const since = emulator.requests().length
      const refused = await subscribe(provider)
      expect(refused.status, refused.text).toBe(400)
      expect(listReads(provider, since)).toEqual([])
    }
  })

  it('a 5xx may have made it: the provider is looked at', async () => {
    pipedrive.fault({ ...SUBSCRIBE.pipedrive, status: 503 })
    const since = pipedrive.requests().length
    const failed = await subscribe('pipedrive')
    expect(failed.status, failed.text).toBe(502)
    expect(listReads('pipedrive', since)).toHaveLength(1)
    expect(heldAt.pipedrive()).toEqual([])
  })

  it('when the look-up fails, the error is answered and the log says a subscription may remain', async () => {
    pipedrive.fault({ ...SUBSCRIBE.pipedrive, lateAnswerMs: LATE_MS })
    pipedrive.fault({ method: 'GET', pathPattern: '^/api/v1/webhooks$', status: 500, times: 10 })
    const before = logLines.length
    const made = await subscribe('pipedrive')
    expect(made.status, made.text).toBe(504)
    const left = heldAt.pipedrive()
    expect(left).toHaveLength(1)
    const id = left[0]!.slice(receiverPrefix().length)
    const warned = logLines
      .slice(before)
      .map((l) => JSON.parse(l) as Rec)
      .filter((l) => l.webhook_id === id)
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatchObject({
      level: 40,
      integration_type: 'pipedrive',
      subscribe_failure: `the provider did not answer within ${TIMEOUT_MS} ms`,
      reason: 'listing its subscriptions failed (the provider answered 500)',
    })
    expect(String(warned[0]!.msg)).toContain(`native webhook ${id} may remain`)
    expect(logLines.join('\n')).not.toContain(DEFAULT_PIPEDRIVE_TOKEN)
    // What README tells the user to do: remove it at the provider.
    pipedrive.clearFaults()
    pipedrive.state.hooks.hooks.clear()
  })

  it('a re-subscription at a check that gets no answer leaves nothing behind either', async () => {
    const made = await subscribe('pipedrive')
    expect(made.status, made.text).toBe(200)
    const id = made.body.id as string
    expect(heldAt.pipedrive()).toHaveLength(1)
    // An admin removes it at Pipedrive; the check subscribes again, and that answer comes too late.
    pipedrive.state.hooks.hooks.clear()
    pipedrive.fault({ ...SUBSCRIBE.pipedrive, lateAnswerMs: LATE_MS })
    const since = pipedrive.requests().length
    await checkNow(server, id)
    expect(
      pipedrive
        .requests()
        .slice(since)
        .filter((r) => r.method === 'POST'),
    ).toHaveLength(1)
    expect(heldAt.pipedrive()).toEqual([])
    await new Promise((r) => setTimeout(r, LATE_MS - TIMEOUT_MS + 200))
    expect(heldAt.pipedrive()).toEqual([])
    // The next check subscribes again, once.
    await checkNow(server, id)
    expect(heldAt.pipedrive()).toEqual([`${receiverPrefix()}${id}`])
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    expect(heldAt.pipedrive()).toEqual([])
  })

  it("a re-subscription at a check that gets no answer keeps the webhook's own remaining subscriptions", async () => {
    // A Lever `updated` webhook is three Lever webhooks at one address; an admin deletes one of them.
    const made = await server.api<Rec>('POST', '/unified/webhook', {
      connection_id: conn.lever,
      object_type: 'ats_application',
      event: 'updated',
      hook_url: server.receiver.url,
      webhook_type: 'native',
    })
    expect(made.status, made.text).toBe(200)
    const id = made.body.id as string
    const ours = () =>
      [...lever.state.webhooks.hooks.values()].filter((h) => h.url === `${receiverPrefix()}${id}`)
    const [deleted, ...kept] = ours()
    expect(kept).toHaveLength(2)
    lever.state.webhooks.hooks.delete(deleted!.id)
    // The check subscribes again; Lever makes the first of the new three, and its answer comes too late.
    lever.fault({ ...SUBSCRIBE.lever, lateAnswerMs: LATE_MS })
    await checkNow(server, id)
    // What the late one made is removed; the two the webhook still holds are not.
    expect(ours().map((h) => h.id)).toEqual(kept.map((h) => h.id))
    await new Promise((r) => setTimeout(r, LATE_MS - TIMEOUT_MS + 200))
    expect(ours().map((h) => h.id)).toEqual(kept.map((h) => h.id))
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    expect(ours()).toEqual([])
  })

  it('a re-subscription whose check lost the webhook to another process removes nothing, and says so', async () => {
    const made = await subscribe('pipedrive')
    expect(made.status, made.text).toBe(200)
    const id = made.body.id as string
    const url = `${receiverPrefix()}${id}`
    // An admin removed it at Pipedrive. This process's check subscribes again and gets no answer; meanwhile
    // its lease ran out and another process, checking in its turn, subscribed at the same address (not yet
    // stored with the webhook).
    pipedrive.state.hooks.hooks.clear()
    const other = await fetch(`${pipedrive.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': DEFAULT_PIPEDRIVE_TOKEN },
      body: JSON.stringify({
        subscription_url: url,
        event_action: 'create',
        event_object: 'person',
        name: 'the other process',
        http_auth_user: 'unigate',
        http_auth_password: 'the other process secret',
      }),
    })
    expect(other.status).toBe(201)
    pipedrive.fault({ ...SUBSCRIBE.pipedrive, lateAnswerMs: LATE_MS })
    const { services } = server
    const webhook = (await services.webhooks.store.byId(id))!
    const resolved = (await services.resolver.resolve(webhook.workspace_id, webhook.connection_id))!
    let renewals = 0
    // The lease is held when the check subscribes, and lost after.
    const stillHeld = async () => ++renewals === 1
    const before = logLines.length
    const since = pipedrive.requests().length
    await expect(services.webhooks.native.watch(webhook, resolved, stillHeld)).resolves.toBe(
      'resubscribe-failed',
    )
    // The other process's subscription is still there (beside the one this check made: it may remain).
    expect(
      pipedrive
        .requests()
        .slice(since)
        .filter((r) => r.method === 'DELETE'),
    ).toEqual([])
    expect(heldAt.pipedrive()).toEqual([url, url])
    const warned = logLines
      .slice(before)
      .map((l) => JSON.parse(l) as Rec)
      .filter((l) => l.webhook_id === id)
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatchObject({ level: 40, integration_type: 'pipedrive' })
    expect(String(warned[0]!.reason)).toMatch(/another process/)
    await new Promise((r) => setTimeout(r, LATE_MS - TIMEOUT_MS + 200))
    pipedrive.clearFaults()
    pipedrive.state.hooks.hooks.clear()
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
  })
})
