import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DEFAULT_PERSONAL_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../emulators/posthog/index.js'
import { hogInvocations } from '../emulators/posthog/routes/hog-functions.js'
import { type NativeServer, startNativeServer } from './support/native-server.js'
import type { WebhookReceiver } from './support/webhook-receiver.js'

// PostHog is offered here whether or not the shared registry lists it yet.

/**
 * A native webhook against the PostHog emulator: Unigate creates a CDP webhook destination (hog function),
 * the emulator calls Unigate when an event is captured, and the receiver gets it typed NATIVE, signed.
 */
describe('native webhooks with PostHog CDP destinations', () => {
  let emulator: PosthogEmulator
  let server: NativeServer
  let base: string
  let receiver: WebhookReceiver

  const api = <T>(method: string, path: string, body?: unknown) => server.api<T>(method, path, body)
  // PostHog lists hog functions without their inputs: each one listed is read for them.
  const destinations = async () => {
    const get = async (path: string) =>
      (
        await fetch(`${emulator.url}/api/projects/@current/hog_functions/${path}`, {
          headers: { authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}` },
        })
      ).json()
    const listed = ((await get('')) as { results: { id: string }[] }).results
    return (await Promise.all(listed.map((f) => get(`${f.id}/`)))) as {
      id: string
      inputs: { url: { value: string } }
    }[]
  }

  beforeAll(async () => {
    emulator = await startPosthogEmulator({ size: { events: 20 } })
    server = await startNativeServer('native')
    base = server.base
    receiver = server.receiver
  })
  afterAll(async () => {
    await server?.close()
    await emulator?.close()
  })

  /** A PostHog connection with a webhook on its created events (native, as the connection holds `webhook`). */
  async function connectWithHook(extra: Record<string, unknown> = {}) {
    const conn = await api<{ id: string }>('POST', '/unified/connection', {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
    })
    expect(conn.status, conn.text).toBe(200)
    const hook = await api<{ id: string; webhook_type: string }>('POST', '/unified/webhook', {
      connection_id: conn.body.id,
      object_type: 'analytics_event',
      event: 'created',
      hook_url: receiver.url,
      ...extra,
    })
    expect(hook.status, hook.text).toBe(200)
    return { conn, hook }
  }

  it('subscribes, receives the pushed event, delivers it NATIVE, and unsubscribes on removal', async () => {
    const { conn, hook } = await connectWithHook({ fields: 'id,name,visitor_id,property_id' })
    expect(hook.body.webhook_type).toBe('native')
    const [destination] = await destinations()
    expect(destination?.inputs.url.value).toBe(`${base}/native-webhooks/${hook.body.id}`)

    const created = await api<{ id: string; visitor_id: string }>(
      'POST',
      `/analytics/${conn.body.id}/event`,
      {
        name: 'signed_up',
        visitor_id: 'u_native',
      },
    )
    expect(created.status, created.text).toBe(200)
    await receiver
      .waitFor(() => receiver.accepted(hook.body.id).length === 1, 15_000, 'the pushed event')
      .catch((e) => {
        // Say what the emulator's destination got back, the likeliest place for a push to go wrong.
        throw new Error(
          `${(e as Error).message}; destination calls: ${JSON.stringify(hogInvocations(emulator.state))}`,
        )
      })
    const [delivery] = receiver.accepted(hook.body.id)
    // The pushed event names the same visitor (the person's uuid) as the created and listed event.
    expect(delivery).toMatchObject({
      type: 'NATIVE',
      data: [{ name: 'signed_up', visitor_id: created.body.visitor_id }],
    })
    expect(created.body.visitor_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(delivery!.data[0]!.id).toBe(created.body.id)
    expect(Object.keys(delivery!.data[0]!).sort()).toEqual(['id', 'name', 'property_id', 'visitor_id'])
    expect(receiver.badSignatures).toEqual([])

    // A call without the subscription's secret is refused.
    const forged = await fetch(`${base}/native-webhooks/${hook.body.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer guessed' },
      body: JSON.stringify({
        event: { event: 'x', distinct_id: 'y', timestamp: '2025-01-01T00:00:00Z', properties: {} },
      }),
    })
    expect(forged.status).toBe(401)

    // A body that is not JSON is parsed only for a call that authenticated, to a webhook that exists: the
    // forged call is a 401 and a call to no webhook a 404, whatever they sent; the signed one is a 400.
    const notJson = (id: string, authorization: string) =>
      fetch(`${base}/native-webhooks/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: '{not json',
      })
    const [subscribed] = (await destinations()) as unknown as {
      inputs: { headers: { value: { Authorization: string } } }
    }[]
    const signed = subscribed!.inputs.headers.value.Authorization
    expect((await notJson(hook.body.id, 'Bearer guessed')).status).toBe(401)
    expect((await notJson('wh_none', signed)).status).toBe(404)
    // Nothing of a refused call is recorded, not even that the provider called.
    const callAt = () =>
      server.services.db
        .selectFrom('webhooks')
        .select('native_call_at')
        .where('id', '=', hook.body.id)
        .executeTakeFirstOrThrow()
    await server.services.db
      .updateTable('webhooks')
      .set({ native_call_at: null })
      .where('id', '=', hook.body.id)
      .execute()
    const refused = await notJson(hook.body.id, signed)
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ message: 'the body is not JSON' })
    expect(await callAt()).toEqual({ native_call_at: null })

    expect((await api('DELETE', `/unified/webhook/${hook.body.id}`)).status).toBe(200)
    expect(await destinations()).toEqual([])
  })

  it("delivers an event once however often it is called in, and never as another project's", async () => {
    const { conn, hook } = await connectWithHook({ fields: 'id,name,property_id' })
    const event = (name: string) =>
      api<{ id: string }>('POST', `/analytics/${conn.body.id}/event`, { name, visitor_id: 'u_once' })
    const first = await event('first_push')
    expect(first.status, first.text).toBe(200)
    await receiver.waitFor(() => receiver.accepted(hook.body.id).length === 1, 15_000, 'the first push')
    const project = receiver.accepted(hook.body.id)[0]!.data[0]!.property_id as string
    expect(project).toMatch(/^\d+$/)
    const destination = (await destinations()).find((d) =>
      d.inputs.url.value.endsWith(hook.body.id),
    ) as unknown as {
      inputs: { headers: { value: { Authorization: string } } }
    }
    // Calls signed with the destination's secret, which the project's members can read in its inputs.
    const call = (uuid: string, projectId: string) =>
      fetch(`${base}/native-webhooks/${hook.body.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: destination.inputs.headers.value.Authorization,
        },
        body: JSON.stringify({
          event: {
            uuid,
            event: 'called_in',
            distinct_id: 'u_once',
            timestamp: '2026-11-28T10:00:00.000000+00:00',
            properties: {},
          },
          person: null,
          project: { id: Number(projectId) },
        }),
      })
    // The first event's call again (a destination's retry, or a captured call sent again): acknowledged.
    expect((await call(first.body.id, project)).status).toBe(200)
    // A call naming another project: acknowledged, and nothing of it delivered.
    expect((await call('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', String(Number(project) + 1))).status).toBe(200)
    // A later event is delivered next: had either call been delivered, it would have come before it.
    const second = await event('second_push')
    expect(second.status, second.text).toBe(200)
    await receiver.waitFor(() => receiver.accepted(hook.body.id).length >= 2, 15_000, 'the second push')
    expect(receiver.accepted(hook.body.id).map((d) => d.data.map((r) => r.name))).toEqual([
      ['first_push'],
      ['second_push'],
    ])
    expect((await api('DELETE', `/unified/webhook/${hook.body.id}`)).status).toBe(200)
  })

  it('delivers nothing pushed once the connection is no longer granted the read, acknowledging the push', async () => {
    const { conn, hook } = await connectWithHook()
    expect(hook.body.webhook_type).toBe('native')
    const narrowed = await api('PATCH', `/unified/connection/${conn.body.id}`, {
      permissions: ['analytics_event_write'],
    })
    expect(narrowed.status, narrowed.text).toBe(200)
    const destination = (await destinations()).find((d) => d.inputs.url.value.endsWith(hook.body.id))
    const calls = () => hogInvocations(emulator.state).filter((c) => c.functionId === destination?.id)
    const created = await api('POST', `/analytics/${conn.body.id}/event`, {
      name: 'after_narrowing',
      visitor_id: 'u_narrowed',
      page_url: 'https://private.example/x',
    })
    expect(created.status, created.text).toBe(200)
    // PostHog pushed it and Unigate acknowledged it (so PostHog stops), delivering nothing.
    await receiver.waitFor(() => calls().some((c) => c.status === 200), 15_000, 'the push acknowledged')
    // A delivery, were there one, follows its storing at once: give it the time it takes a granted push.
    await receiver
      .waitFor(() => receiver.accepted(hook.body.id).length > 0, 2_000, 'a delivery')
      .catch(() => {})
    expect(receiver.accepted(hook.body.id)).toEqual([])
    expect((await api('DELETE', `/unified/webhook/${hook.body.id}`)).status).toBe(200)
  })

  it('polls instead (a virtual webhook) for a connection not granted webhook, and pushes once it is', async () => {
    const withoutWebhook = ['analytics_event_read', 'analytics_event_write']
    const conn = await api<{ id: string; permissions: string[] }>('POST', '/unified/connection', {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
      permissions: withoutWebhook,
    })
    expect(conn.status, conn.text).toBe(200)
    expect(conn.body.permissions).toEqual(withoutWebhook)
    const input = { connection_id: conn.body.id, object_type: 'analytics_event', event: 'created' }
    const create = (extra: Record<string, unknown> = {}) =>
      api<{ id: string; webhook_type: string; message: string }>('POST', '/unified/webhook', {
        ...input,
        hook_url: receiver.url,
        ...extra,
      })

    const polled = await create()
    expect(polled.status, polled.text).toBe(200)
    expect(polled.body.webhook_type).toBe('virtual')
    expect(await destinations()).toEqual([])
    const refused = await create({ webhook_type: 'native' })
    expect(refused.status, refused.text).toBe(403)
    expect(refused.body.message).toMatch(/not granted webhook/)
    expect(await destinations()).toEqual([])

    const granted = await api('PATCH', `/unified/connection/${conn.body.id}`, {
      permissions: [...withoutWebhook, 'webhook'],
    })
    expect(granted.status, granted.text).toBe(200)
    const pushed = await create()
    expect(pushed.status, pushed.text).toBe(200)
    expect(pushed.body.webhook_type).toBe('native')
    expect(await destinations()).toHaveLength(1)

    for (const id of [polled.body.id, pushed.body.id]) {
      expect((await api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    }
    expect(await destinations()).toEqual([])
  })
})
