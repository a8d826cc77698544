import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PIPEDRIVE_TOKEN,
  type PipedriveEmulator,
  startPipedriveEmulator,
} from '../emulators/pipedrive/index.js'
import { type NativeServer, startNativeServer, useNativeSuite } from './support/native-server.js'
import { checkNow, notificationsOf } from './support/native-watch.js'

type Rec = Record<string, unknown>

/**
 * Native webhooks against the Pipedrive emulator: Unigate subscribes with Pipedrive's Webhooks API (v2
 * payloads, HTTP Basic credentials it chose), the emulator calls Unigate when a person changes through its
 * API, and the receiver gets the contact typed NATIVE, signed.
 */
describe('native webhooks with Pipedrive webhooks v2', () => {
  let emu: PipedriveEmulator
  let server: NativeServer
  let conn: string

  const providerHooks = async () => {
    const res = await fetch(`${emu.url}/api/v1/webhooks`, {
      headers: { 'x-api-token': DEFAULT_PIPEDRIVE_TOKEN },
    })
    return ((await res.json()) as { data: Rec[] }).data
  }
  /** The webhooks Pipedrive holds that call the unified webhook `id`. */
  const oursAtPipedrive = async (id: string) =>
    (await providerHooks()).filter((h) => h.subscription_url === `${server.base}/native-webhooks/${id}`)
  const subscriptionBodies = () =>
    emu
      .requests()
      .filter((r) => r.method === 'POST' && r.path === '/api/v1/webhooks')
      .map((r) => r.body as Rec)

  useNativeSuite({
    workspace: 'pipedrive-native',
    start: () => startPipedriveEmulator({ seed: 3, persons: 5, burst: 1000 }),
    connection: (emulator) => ({
      integration_type: 'pipedrive',
      auth: { api_token: DEFAULT_PIPEDRIVE_TOKEN, api_url: emulator.url },
    }),
    ready: (suite) => {
      emu = suite.emulator
      server = suite.server
      conn = suite.connection
    },
  })

  it('claims native created, updated and deleted for contacts in the support matrix', async () => {
    const [integration] = (
      await server.api<{ support: Record<string, Rec> }[]>('GET', '/unified/integration?type=pipedrive')
    ).body.filter((i) => (i as unknown as Rec).type === 'pipedrive')
    expect(integration?.support.crm_contact?.webhook_events).toEqual({
      created: ['virtual', 'native'],
      updated: ['virtual', 'native'],
      deleted: ['virtual', 'native'],
    })
  })

  it('subscribes per event, delivers each person change NATIVE to its webhook only, and unsubscribes', async () => {
    const events = ['created', 'updated', 'deleted'] as const
    const hooks = {} as Record<(typeof events)[number], string>
    for (const event of events) {
      hooks[event] = await server.nativeWebhook({
        connection_id: conn,
        object_type: 'crm_contact',
        event,
        fields: 'id,name,emails',
      })
    }

    // What reached Pipedrive: one v2 person subscription per event, back to Unigate, with Basic credentials.
    const bodies = subscriptionBodies()
    expect(bodies.map((b) => b.event_action)).toEqual(['create', 'change', 'delete'])
    for (const [i, event] of events.entries()) {
      expect(bodies[i]).toMatchObject({
        subscription_url: `${server.base}/native-webhooks/${hooks[event]}`,
        event_object: 'person',
        version: '2.0',
        http_auth_user: 'unigate',
      })
      expect(String(bodies[i]!.name)).toContain(hooks[event])
    }
    const passwords = bodies.map((b) => String(b.http_auth_password))
    expect(new Set(passwords).size).toBe(3)
    for (const password of passwords) expect(password.length).toBeGreaterThanOrEqual(40)
    // The secret never comes back through the API.
    const view = await server.api('GET', `/unified/webhook/${hooks.created}`)
    const list = await server.api('GET', '/unified/webhook')
    for (const password of passwords) {
      expect(view.text).not.toContain(password)
      expect(list.text).not.toContain(password)
    }

    const created = await server.api<{ id: string }>('POST', `/crm/${conn}/contact`, {
      name: 'Ada Native',
      emails: [{ email: 'ada@native.example' }],
    })
    expect(created.status, created.text).toBe(200)
    const id = created.body.id
    await server.receiver.untilAccepted(hooks.created, 1, 'created')
    expect(server.receiver.accepted(hooks.created)[0]).toMatchObject({
      type: 'NATIVE',
      data: [{ id, name: 'Ada Native', emails: [{ email: 'ada@native.example', type: 'WORK' }] }],
    })

    expect((await server.api('PATCH', `/crm/${conn}/contact/${id}`, { name: 'Ada Renamed' })).status).toBe(
      200,
    )
    await server.receiver.untilAccepted(hooks.updated, 1, 'updated')
    expect(server.receiver.accepted(hooks.updated)[0]).toMatchObject({
      type: 'NATIVE',
      data: [{ id, name: 'Ada Renamed' }],
    })

    expect((await server.api('DELETE', `/crm/${conn}/contact/${id}`)).status).toBe(200)
    await server.receiver.untilAccepted(hooks.deleted, 1, 'deleted')
    // A deleted person is delivered as its id, once Pipedrive's read answers that it is gone.
    expect(server.receiver.accepted(hooks.deleted)[0]).toMatchObject({ type: 'NATIVE', data: [{ id }] })
    // Each webhook got its own event only; Pipedrive's calls carried the Basic credentials Unigate set.
    expect(server.receiver.accepted(hooks.created)).toHaveLength(1)
    expect(server.receiver.accepted(hooks.updated)).toHaveLength(1)
    expect(emu.state.hooks.calls.map((c) => c.status)).toEqual([200, 200, 200])
    expect(emu.state.hooks.calls[0]?.authorization).toBe(
      `Basic ${Buffer.from(`unigate:${passwords[0]}`).toString('base64')}`,
    )
    expect(server.receiver.badSignatures).toEqual([])

    for (const event of events) {
      expect((await server.api('DELETE', `/unified/webhook/${hooks[event]}`)).status).toBe(200)
    }
    expect(await providerHooks()).toEqual([])
  })

  it('says which scope an OAuth app lacks when Pipedrive refuses its webhook, polls when the type is left out, and subscribes once it has it', async () => {
    const oauthConnection = async (clientId: string, scopes: string[]) => {
      emu.registerClient({ clientId, clientSecret: 'sec', redirectUris: [], scopes })
      const t = emu.state.issueTokens(clientId, 3600)
      const made = await server.api<{ id: string }>('POST', '/unified/connection', {
        integration_type: 'pipedrive',
        auth: {
          access_token: t.access_token,
          refresh_token: t.refresh_token,
          client_id: clientId,
          client_secret: 'sec',
          api_url: emu.url,
        },
        permissions: ['crm_contact_read', 'webhook'],
      })
      expect(made.status, made.text).toBe(200)
      return made.body.id
    }
    const hookOn = (connection_id: string) =>
      server.api<{ message: string; id: string }>('POST', '/unified/webhook', {
        connection_id,
        object_type: 'crm_contact',
        event: 'created',
        hook_url: server.receiver.url,
        webhook_type: 'native',
      })
    // An app with contacts scopes only: Pipedrive answers 403 Scope and URL mismatch to its webhook.
    const contactsOnly = await oauthConnection('contacts-app', ['contacts:full'])
    const refused = await hookOn(contactsOnly)
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('webhooks:full')
    expect(refused.body.message).toContain('virtual')
    expect(await providerHooks()).toEqual([])
    // With webhook_type left out, the same connection still gets its changes: by polling, which its scopes allow.
    const polled = await server.api<{ id: string; webhook_type: string }>('POST', '/unified/webhook', {
      connection_id: contactsOnly,
      object_type: 'crm_contact',
      event: 'created',
      hook_url: server.receiver.url,
    })
    expect(polled.status, polled.text).toBe(200)
    expect(polled.body.webhook_type).toBe('virtual')
    expect(await providerHooks()).toEqual([])
    const listed = await server.api<{ id: string; webhook_type: string }[]>('GET', '/unified/webhook')
    expect(listed.body.filter((w) => w.id === polled.body.id)).toEqual([
      expect.objectContaining({ id: polled.body.id, webhook_type: 'virtual' }),
    ])
    expect((await server.api('DELETE', `/unified/webhook/${polled.body.id}`)).status).toBe(200)
    // Any other 403 (here one in front of Pipedrive, for an API token) is answered as it came: no polling.
    emu.fault({ status: 403, times: 1, method: 'POST', pathPattern: '^/api/v1/webhooks$' })
    const blocked = await server.api<{ message: string }>('POST', '/unified/webhook', {
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'created',
      hook_url: server.receiver.url,
    })
    expect(blocked.status, blocked.text).toBe(403)
    expect((await server.api<unknown[]>('GET', '/unified/webhook')).body).toEqual([])
    const allowed = await hookOn(await oauthConnection('hooks-app', ['contacts:full', 'webhooks:full']))
    expect(allowed.status, allowed.text).toBe(200)
    expect((await server.api('DELETE', `/unified/webhook/${allowed.body.id}`)).status).toBe(200)
    expect(await providerHooks()).toEqual([])
  })

  it('refuses a call without the subscription credentials, and an action the webhook did not ask for', async () => {
    const hook = await server.nativeWebhook({
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'created',
    })
    const password = String(subscriptionBodies().at(-1)?.http_auth_password)
    const [known] = emu.state.livePersons()
    const call = (authorization: string | undefined, action: string, entityId: string) =>
      fetch(`${server.base}/native-webhooks/${hook}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({
          meta: { action, entity: 'person', entity_id: entityId, version: '2.0' },
          data: { id: Number(entityId), name: 'Forged' },
          previous: null,
        }),
      })
    const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`
    expect((await call(undefined, 'create', '77')).status).toBe(401)
    expect((await call(basic('unigate', 'guessed'), 'create', '77')).status).toBe(401)
    expect((await call(basic('someone', password), 'create', '77')).status).toBe(401)
    expect((await call(`Bearer ${password}`, 'create', '77')).status).toBe(401)
    // With the credentials, a change pushed to a `created` webhook is acknowledged and not delivered; a
    // person Pipedrive does not have is not delivered either.
    expect((await call(basic('unigate', password), 'change', String(known?.id))).status).toBe(200)
    expect((await call(basic('unigate', password), 'create', '77')).status).toBe(200)
    // The body's record is not what is delivered: the person as Pipedrive answers a read of it is.
    expect((await call(basic('unigate', password), 'create', String(known?.id))).status).toBe(200)
    await server.receiver.untilAccepted(hook, 1, 'pushed')
    expect(server.receiver.accepted(hook).map((d) => d.data)).toEqual([
      [expect.objectContaining({ id: String(known?.id), name: known?.name })],
    ])
    expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
    expect(await providerHooks()).toEqual([])
  })

  it('delivers the person as a read returns it (title, address, custom fields), which the v2 push leaves out', async () => {
    const hook = await server.nativeWebhook({
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'updated',
      fields: 'id,name,title,address,metadata',
    })
    const person = emu.state.livePersons()[0]
    if (!person) throw new Error('the emulator has no person')
    person.jobTitle = 'Chief Engineer'
    person.postalAddress = { locality: 'Tallinn', postal_code: '10615', country: 'Estonia' }
    person.customFields = { d4de1c1518b4531717c676029a45911c340390a6: 'gold' }
    const read = await server.api<Rec>(
      'GET',
      `/crm/${conn}/contact/${person.id}?fields=id,name,title,address,metadata`,
    )
    expect(read.status, read.text).toBe(200)
    expect(read.body.title).toBe('Chief Engineer')
    const calls = emu.state.hooks.calls.length
    expect(
      (await server.api('PATCH', `/crm/${conn}/contact/${person.id}`, { name: 'Renamed Person' })).status,
    ).toBe(200)
    await server.receiver.untilAccepted(hook, 1, 'updated')
    // What Pipedrive pushed lacks them (webhooks v2 "only crucial information", custom fields as objects)…
    const pushed = emu.state.hooks.calls.slice(calls).find((c) => c.url.endsWith(hook))?.body as Rec
    expect(pushed.data).not.toHaveProperty('job_title')
    expect(pushed.data).not.toHaveProperty('postal_address')
    // …but the delivery is the contact as GET /crm/{connection}/contact/{id} answers it now.
    expect(server.receiver.accepted(hook)[0]?.data).toEqual([{ ...read.body, name: 'Renamed Person' }])
    expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
  })

  it('delivers a delete only when Pipedrive no longer has the person', async () => {
    const hook = await server.nativeWebhook({
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'deleted',
    })
    const password = String(subscriptionBodies().at(-1)?.http_auth_password)
    const [live, doomed] = emu.state.livePersons()
    // Any user of the company can read the Basic password back from Pipedrive: a delete call it carries for
    // a person Pipedrive still has is acknowledged and delivers nothing.
    const forged = await fetch(`${server.base}/native-webhooks/${hook}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`unigate:${password}`).toString('base64')}`,
      },
      body: JSON.stringify({
        meta: { action: 'delete', entity: 'person', entity_id: String(live?.id), version: '2.0' },
        data: null,
        previous: { id: live?.id, name: live?.name },
      }),
    })
    expect(forged.status).toBe(200)
    expect((await server.api('DELETE', `/crm/${conn}/contact/${doomed?.id}`)).status).toBe(200)
    await server.receiver.waitFor(
      () => server.receiver.accepted(hook).some((d) => d.data[0]?.id === String(doomed?.id)),
      15_000,
      'the real delete',
    )
    expect(server.receiver.accepted(hook).map((d) => d.data)).toEqual([[{ id: String(doomed?.id) }]])
    expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
  })
  it('subscribes again when Pipedrive no longer has the webhook, and tells the user since when calls may be missing', async () => {
    const id = await server.nativeWebhook({
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'created',
      fields: 'id,name',
    })
    const ours = () => oursAtPipedrive(id)
    const [first] = await ours()
    const created = await server.api<{ id: string }>('POST', `/crm/${conn}/contact`, { name: 'Before Gap' })
    await server.receiver.waitFor(() => server.receiver.accepted(id).length === 1, 15_000, 'before the gap')

    // Present at Pipedrive: the check changes nothing.
    expect((await checkNow(server, id)).is_healthy).toBe(true)
    expect((await ours()).map((h) => h.id)).toEqual([first?.id])

    // An admin deletes it (deleteWebhook); Pipedrive also does after 3 days of failed deliveries.
    const removedAt = new Date().toISOString()
    const deleted = await fetch(`${emu.url}/api/v1/webhooks/${first?.id}`, {
      method: 'DELETE',
      headers: { 'x-api-token': DEFAULT_PIPEDRIVE_TOKEN },
    })
    expect(deleted.status).toBe(200)
    const callsBefore = emu.state.hooks.calls.length
    await server.api('POST', `/crm/${conn}/contact`, { name: 'In The Gap' })
    await new Promise((r) => setTimeout(r, 300))
    expect(emu.state.hooks.calls.length).toBe(callsBefore)

    const checked = await checkNow(server, id)
    expect(checked.is_healthy).toBe(true)
    // A new subscription, to the same address, with a new secret.
    const again = await ours()
    expect(again).toHaveLength(1)
    expect(again[0]?.id).not.toBe(first?.id)
    expect(again[0]).toMatchObject({
      event_action: 'create',
      event_object: 'person',
      http_auth_user: 'unigate',
    })
    expect(again[0]?.http_auth_password).not.toBe(first?.http_auth_password)

    // Pushes reach the receiver again.
    const after = await server.api<{ id: string }>('POST', `/crm/${conn}/contact`, { name: 'After Gap' })
    await server.receiver.waitFor(() => server.receiver.accepted(id).length === 2, 15_000, 'after the gap')
    expect(server.receiver.accepted(id)[1]?.data).toEqual([{ id: after.body.id, name: 'After Gap' }])

    // The user sees the gap: a notification naming the webhook and since when calls may be missing.
    const notes = (await notificationsOf(server, id)).filter((n) => n.event === 'WEBHOOK_UNHEALTHY')
    expect(notes).toHaveLength(1)
    const description = String(notes[0]?.description)
    expect(description).toContain(id)
    expect(description).toContain('pipedrive subscription was gone')
    const since = /since (\S+) /.exec(description)?.[1] ?? ''
    expect(Date.parse(since)).toBeLessThanOrEqual(Date.parse(removedAt))
    expect(Date.parse(since)).toBeGreaterThanOrEqual(Date.parse(String(first?.add_time)) - 60_000)
    for (const secret of [first?.http_auth_password, again[0]?.http_auth_password]) {
      expect(description).not.toContain(String(secret))
      expect((await server.api('GET', `/unified/webhook/${id}`)).text).not.toContain(String(secret))
    }
    expect(created.status).toBe(200)
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    expect(await ours()).toEqual([])
  })

  it('leaves nothing at Pipedrive when the webhook is deleted while a check subscribes again', async () => {
    const id = await server.nativeWebhook({
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'deleted',
    })
    const ours = () => oursAtPipedrive(id)
    const [first] = await ours()
    // Gone at Pipedrive: the check will subscribe again. Its look at Pipedrive's webhooks is slow, and so is
    // the user's DELETE reaching Pipedrive, so the two overlap: the check subscribes while the DELETE runs.
    emu.state.hooks.hooks.delete(Number(first?.id))
    emu.fault({ delayMs: 1_000, method: 'GET', pathPattern: '^/api/v1/webhooks$' })
    emu.fault({ delayMs: 2_500, method: 'DELETE', pathPattern: `^/api/v1/webhooks/${first?.id}$` })
    try {
      expect((await server.api('PUT', `/unified/webhook/${id}/trigger`)).status).toBe(200)
      await new Promise((r) => setTimeout(r, 300))
      expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    } finally {
      emu.clearFaults()
    }
    // Whatever the check made is removed again: no webhook of Pipedrive calls a deleted unified webhook.
    const deadline = Date.now() + 5_000
    while ((await ours()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(await ours()).toEqual([])
  })

  it('keeps no second subscription when the check loses its lease while Pipedrive subscribes', async () => {
    const id = await server.nativeWebhook({
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'updated',
    })
    const ours = () => oursAtPipedrive(id)
    const [first] = await ours()
    emu.state.hooks.hooks.delete(Number(first?.id))
    const { webhooks, resolver } = server.services
    const webhook = (await webhooks.store.byId(id))!
    const resolved = (await resolver.resolve(webhook.workspace_id, conn))!
    const before = await webhooks.store.nativeSubscriptionOf(id)
    // Held when the check found the subscription gone; lost (to another process, now checking in its turn)
    // by the time Pipedrive had answered the new subscription.
    const held = [true, false]
    await expect(webhooks.native.watch(webhook, resolved, async () => held.shift() ?? false)).rejects.toThrow(
      /lease/,
    )
    expect(await ours()).toEqual([])
    expect(await webhooks.store.nativeSubscriptionOf(id)).toEqual(before)
    expect(await notificationsOf(server, id)).toEqual([expect.objectContaining({ event: 'WEBHOOK_CREATED' })])
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
  })

  it('takes a 503 on the check for nothing: no new subscription, no notification, still healthy', async () => {
    const id = await server.nativeWebhook({
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'updated',
    })
    const before = await providerHooks()
    const posts = subscriptionBodies().length
    // More 503s than Unigate's retries of one request: the check itself fails.
    emu.fault({ status: 503, times: 10, method: 'GET', pathPattern: '^/api/v1/webhooks$' })
    const checked = await checkNow(server, id)
    emu.clearFaults()
    expect(checked.is_healthy).toBe(true)
    expect(checked.checked_at).toBeUndefined()
    expect(await providerHooks()).toEqual(before)
    expect(subscriptionBodies()).toHaveLength(posts)
    expect(await notificationsOf(server, id)).toEqual([expect.objectContaining({ event: 'WEBHOOK_CREATED' })])
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
  })
  it('checks on its own every UNIGATE_WEBHOOK_NATIVE_CHECK_MINUTES, without a trigger', async () => {
    // A check every 5 "minutes" of 200 ms: once a second.
    const watching = await startNativeServer('pipedrive-native-watch', { nativeCheckMinutes: 5 })
    try {
      const connection = await watching.api<{ id: string }>('POST', '/unified/connection', {
        integration_type: 'pipedrive',
        auth: { api_token: DEFAULT_PIPEDRIVE_TOKEN, api_url: emu.url },
      })
      expect(connection.status, connection.text).toBe(200)
      const hook = await watching.api<{ id: string }>('POST', '/unified/webhook', {
        connection_id: connection.body.id,
        object_type: 'crm_contact',
        event: 'deleted',
        hook_url: watching.receiver.url,
      })
      expect(hook.status, hook.text).toBe(200)
      const url = `${watching.base}/native-webhooks/${hook.body.id}`
      const [first] = (await providerHooks()).filter((h) => h.subscription_url === url)
      expect(first).toBeDefined()
      emu.state.hooks.hooks.delete(Number(first?.id))
      await watching.receiver.waitFor(
        () => [...emu.state.hooks.hooks.values()].some((h) => h.subscriptionUrl === url),
        10_000,
        'the scheduled re-subscription',
      )
      // The notification follows the subscription in the same check.
      const told = async () =>
        (await notificationsOf(watching, hook.body.id)).filter((n) => n.event === 'WEBHOOK_UNHEALTHY')
      const deadline = Date.now() + 5_000
      while ((await told()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(await told()).toHaveLength(1)
      expect((await watching.api('DELETE', `/unified/webhook/${hook.body.id}`)).status).toBe(200)
    } finally {
      await watching.close()
    }
  })
})
