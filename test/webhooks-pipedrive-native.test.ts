import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PIPEDRIVE_TOKEN,
  type PipedriveEmulator,
  startPipedriveEmulator,
} from '../emulators/pipedrive/index.js'
import { type NativeServer, useNativeSuite } from './support/native-server.js'

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
})
