import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_PIPEDRIVE_TOKEN,
  type PipedriveEmulator,
  startPipedriveEmulator,
} from '../emulators/pipedrive/index.js'
import { type NativeServer, startNativeServer } from './support/native-server.js'

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

  beforeAll(async () => {
    emu = await startPipedriveEmulator({ seed: 3, persons: 5, burst: 1000 })
    server = await startNativeServer('pipedrive-native')
    const created = await server.api<{ id: string }>('POST', '/unified/connection', {
      integration_type: 'pipedrive',
      auth: { api_token: DEFAULT_PIPEDRIVE_TOKEN, api_url: emu.url },
    })
    expect(created.status, created.text).toBe(200)
    conn = created.body.id
  })
  afterAll(async () => {
    await server?.close()
    await emu?.close()
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
    const hooks: Record<string, string> = {}
    for (const event of ['created', 'updated', 'deleted']) {
      const hook = await server.api<{ id: string; webhook_type: string }>('POST', '/unified/webhook', {
        connection_id: conn,
        object_type: 'crm_contact',
        event,
        hook_url: server.receiver.url,
        fields: 'id,name,emails',
      })
      expect(hook.status, hook.text).toBe(200)
      expect(hook.body.webhook_type).toBe('native')
      hooks[event] = hook.body.id
    }

    // What reached Pipedrive: one v2 person subscription per event, back to Unigate, with Basic credentials.
    const bodies = subscriptionBodies()
    expect(bodies.map((b) => b.event_action)).toEqual(['create', 'change', 'delete'])
    for (const [i, event] of ['created', 'updated', 'deleted'].entries()) {
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
    await server.receiver.waitFor(
      () => server.receiver.accepted(hooks.created).length === 1,
      15_000,
      'created',
    )
    expect(server.receiver.accepted(hooks.created)[0]).toMatchObject({
      type: 'NATIVE',
      data: [{ id, name: 'Ada Native', emails: [{ email: 'ada@native.example', type: 'WORK' }] }],
    })

    expect((await server.api('PATCH', `/crm/${conn}/contact/${id}`, { name: 'Ada Renamed' })).status).toBe(
      200,
    )
    await server.receiver.waitFor(
      () => server.receiver.accepted(hooks.updated).length === 1,
      15_000,
      'updated',
    )
    expect(server.receiver.accepted(hooks.updated)[0]).toMatchObject({
      type: 'NATIVE',
      data: [{ id, name: 'Ada Renamed' }],
    })

    expect((await server.api('DELETE', `/crm/${conn}/contact/${id}`)).status).toBe(200)
    await server.receiver.waitFor(
      () => server.receiver.accepted(hooks.deleted).length === 1,
      15_000,
      'deleted',
    )
    // A deleted person is delivered as Pipedrive last knew it.
    expect(server.receiver.accepted(hooks.deleted)[0]).toMatchObject({
      type: 'NATIVE',
      data: [{ id, name: 'Ada Renamed' }],
    })
    // Each webhook got its own event only; Pipedrive's calls carried the Basic credentials Unigate set.
    expect(server.receiver.accepted(hooks.created)).toHaveLength(1)
    expect(server.receiver.accepted(hooks.updated)).toHaveLength(1)
    expect(emu.state.hooks.calls.map((c) => c.status)).toEqual([200, 200, 200])
    expect(emu.state.hooks.calls[0]?.authorization).toBe(
      `Basic ${Buffer.from(`unigate:${passwords[0]}`).toString('base64')}`,
    )
    expect(server.receiver.badSignatures).toEqual([])

    for (const event of ['created', 'updated', 'deleted']) {
      expect((await server.api('DELETE', `/unified/webhook/${hooks[event]}`)).status).toBe(200)
    }
    expect(await providerHooks()).toEqual([])
  })

  it('refuses a call without the subscription credentials, and an action the webhook did not ask for', async () => {
    const hook = await server.api<{ id: string }>('POST', '/unified/webhook', {
      connection_id: conn,
      object_type: 'crm_contact',
      event: 'created',
      hook_url: server.receiver.url,
    })
    expect(hook.status, hook.text).toBe(200)
    const password = String(subscriptionBodies().at(-1)?.http_auth_password)
    const call = (authorization: string | undefined, action: string, name = 'Forged') =>
      fetch(`${server.base}/native-webhooks/${hook.body.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({
          meta: { action, entity: 'person', entity_id: '77', version: '2.0' },
          data: { id: 77, name },
          previous: null,
        }),
      })
    const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`
    expect((await call(undefined, 'create')).status).toBe(401)
    expect((await call(basic('unigate', 'guessed'), 'create')).status).toBe(401)
    expect((await call(basic('someone', password), 'create')).status).toBe(401)
    expect((await call(`Bearer ${password}`, 'create')).status).toBe(401)
    // With the credentials, a change pushed to a `created` webhook is acknowledged and not delivered.
    expect((await call(basic('unigate', password), 'change', 'Changed')).status).toBe(200)
    expect((await call(basic('unigate', password), 'create')).status).toBe(200)
    await server.receiver.waitFor(() => server.receiver.accepted(hook.body.id).length === 1, 15_000, 'pushed')
    expect(server.receiver.accepted(hook.body.id)[0]?.data).toEqual([
      expect.objectContaining({ id: '77', name: 'Forged' }),
    ])
    expect((await server.api('DELETE', `/unified/webhook/${hook.body.id}`)).status).toBe(200)
    expect(await providerHooks()).toEqual([])
  })
})
