import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  type BamboohrEmulator,
  DEFAULT_BAMBOOHR_API_KEY,
  DEFAULT_BAMBOOHR_DOMAIN,
  startBamboohrEmulator,
} from '../emulators/bamboohr/index.js'
import { type NativeServer, useNativeSuite } from './support/native-server.js'
import { checkNow, notificationsOf } from './support/native-watch.js'

type Rec = Record<string, unknown>

/**
 * Native webhooks against the BambooHR emulator: Unigate creates a permissioned webhook (field-based
 * events), keeps the private key BambooHR answers with, and accepts BambooHR's calls only with a fresh
 * signature of their exact body; the receiver gets the employee typed NATIVE, signed.
 */
describe('native webhooks with BambooHR permissioned webhooks', () => {
  let emu: BamboohrEmulator
  let server: NativeServer
  let conn: string
  const basic = `Basic ${Buffer.from(`${DEFAULT_BAMBOOHR_API_KEY}:x`).toString('base64')}`
  const gateway = () => `${emu.url}/api/gateway.php/${DEFAULT_BAMBOOHR_DOMAIN}/v1`
  const providerHooks = async () => {
    const res = await fetch(`${gateway()}/webhooks/`, {
      headers: { authorization: basic, accept: 'application/json' },
    })
    return ((await res.json()) as { webhooks: Rec[] }).webhooks
  }
  const employeeWrite = (path: string, body: Rec) =>
    fetch(`${gateway()}${path}`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const hookFor = (event: string) =>
    server.nativeWebhook({
      connection_id: conn,
      object_type: 'hris_employee',
      event,
      fields: 'id,first_name,last_name,title,company_id',
    })
  /** A call as BambooHR signs it: the hex HMAC-SHA256 of the body followed by the timestamp. */
  const sign = (key: string, text: string, ts: string) =>
    createHmac('sha256', key)
      .update(text + ts)
      .digest('hex')
  const signedCall = (hook: string, text: string, ts: string, signature: string) =>
    fetch(`${server.base}/native-webhooks/${hook}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-bamboohr-timestamp': ts,
        'x-bamboohr-signature': signature,
      },
      body: text,
    })
  /** Asks Unigate for a native webhook on `connection_id` for `event`, to the test receiver; the raw answer. */
  const nativeSubscribe = <T>(connection_id: string, event: string) =>
    server.api<T>('POST', '/unified/webhook', {
      connection_id,
      object_type: 'hris_employee',
      event,
      hook_url: server.receiver.url,
      webhook_type: 'native',
    })
  const bamboohrConnection = (url: string) => ({
    integration_type: 'bamboohr',
    auth: {
      api_key: DEFAULT_BAMBOOHR_API_KEY,
      company_domain: DEFAULT_BAMBOOHR_DOMAIN,
      api_url: `${url}/api/gateway.php`,
    },
  })

  useNativeSuite({
    workspace: 'bamboohr-native',
    // BambooHR sends only to https:// addresses; Unigate listens on plain http on this machine.
    start: () => startBamboohrEmulator({ seed: 2, employees: 4, insecureHookUrls: true }),
    connection: (emulator) => bamboohrConnection(emulator.url),
    ready: (suite) => {
      emu = suite.emulator
      server = suite.server
      conn = suite.connection
    },
  })

  it('subscribes per event, keeps the private key secret, delivers each change NATIVE, and unsubscribes', async () => {
    const hooks = {
      created: await hookFor('created'),
      updated: await hookFor('updated'),
      deleted: await hookFor('deleted'),
    }
    // What reached BambooHR: one field-based webhook per event, to Unigate, posting fields by API name.
    const bodies = emu
      .requests()
      .filter((r) => r.method === 'POST' && /\/webhooks\/?$/.test(r.path))
      .map((r) => r.body as Rec)
    expect(bodies).toHaveLength(3)
    for (const [i, event] of (['created', 'updated', 'deleted'] as const).entries()) {
      expect(bodies[i]).toMatchObject({
        url: `${server.base}/native-webhooks/${hooks[event]}`,
        format: 'json',
        events: [`employee_with_fields.${event}`],
        postFields: expect.objectContaining({ firstName: 'firstName', jobTitle: 'jobTitle' }),
      })
      expect(bodies[i]!.monitorFields).toEqual(expect.arrayContaining(['firstName', 'jobTitle']))
    }
    const keys = [...emu.state.hooks.hooks.values()].map((h) => h.privateKey)
    for (const path of [`/unified/webhook/${hooks.created}`, '/unified/webhook']) {
      const text = (await server.api('GET', path)).text
      for (const key of keys) expect(text).not.toContain(key)
    }

    // An employee added through BambooHR's API.
    const added = await employeeWrite('/employees/', {
      firstName: 'Grace',
      lastName: 'Native',
      jobTitle: 'Analyst',
    })
    expect(added.status).toBe(201)
    const id = added.headers.get('location')!.split('/').pop()!
    await server.receiver.untilAccepted(hooks.created, 1, 'created')
    expect(server.receiver.accepted(hooks.created)[0]).toMatchObject({
      type: 'NATIVE',
      data: [{ id, first_name: 'Grace', last_name: 'Native', title: 'Analyst', company_id: 'acme' }],
    })

    expect((await employeeWrite(`/employees/${id}`, { jobTitle: 'Director' })).status).toBe(200)
    await server.receiver.untilAccepted(hooks.updated, 1, 'updated')
    expect(server.receiver.accepted(hooks.updated)[0]).toMatchObject({
      type: 'NATIVE',
      data: [{ id, title: 'Director' }],
    })

    // A delete says only which employee went (empty fields, global-webhooks), and it can no longer be read.
    emu.state.deleteEmployee(Number(id))
    await server.receiver.untilAccepted(hooks.deleted, 1, 'deleted')
    expect(server.receiver.accepted(hooks.deleted)[0]).toMatchObject({ type: 'NATIVE', data: [{ id }] })
    expect(server.receiver.accepted(hooks.deleted)[0]?.data).toEqual([{ id }])
    expect(server.receiver.accepted(hooks.created)).toHaveLength(1)
    expect(server.receiver.accepted(hooks.updated)).toHaveLength(1)
    expect(emu.state.hooks.calls.map((c) => c.status)).toEqual([200, 200, 200])
    expect(server.receiver.badSignatures).toEqual([])

    for (const hook of Object.values(hooks)) {
      expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
    }
    expect(await providerHooks()).toEqual([])
  })

  it('refuses a call not signed with the private key, with another body, or with a stale timestamp', async () => {
    // An update: the one call that carries the employee's fields (a create's are empty, read back by id).
    const hook = await hookFor('updated')
    const key = [...emu.state.hooks.hooks.values()].at(-1)!.privateKey
    const body = JSON.stringify({
      employees: [
        {
          id: '901',
          action: 'Updated',
          timestamp: '2026-01-01T00:00:00+0000',
          fields: { firstName: 'Signed' },
          changedFields: ['firstName'],
        },
      ],
    })
    const call = (text: string, ts: string, signature: string) => signedCall(hook, text, ts, signature)
    const now = String(Math.floor(Date.now() / 1000))
    // Older than the 155 minutes of retries BambooHR documents (and five more).
    const stale = String(Math.floor(Date.now() / 1000) - 4 * 3600)
    expect((await call(body, now, sign('not-the-key', body, now))).status).toBe(401)
    expect((await call(body, now, sign(key, body.replace('Signed', 'Forged'), now))).status).toBe(401)
    expect((await call(body, stale, sign(key, body, stale))).status).toBe(401)
    expect((await call(body, now, '')).status).toBe(401)
    expect((await call(body, now, sign(key, body, now))).status).toBe(200)
    await server.receiver.untilAccepted(hook, 1, 'signed push')
    expect(server.receiver.accepted(hook)[0]?.data).toEqual([
      { id: '901', first_name: 'Signed', company_id: 'acme' },
    ])
    expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
  })

  it('reads back a call naming more created employees than the connection queues, a few at a time', async () => {
    // Added before the webhook exists (BambooHR tells no one), then named in one call, as a bulk import is.
    const added = Array.from({ length: 100 }, (_, i) =>
      emu.state.addEmployee({ firstName: `Bulk${i}`, lastName: 'Import' }),
    )
    const hook = await hookFor('created')
    const key = [...emu.state.hooks.hooks.values()].at(-1)!.privateKey
    const body = JSON.stringify({
      employees: added.map((e) => ({
        id: String(e.id),
        action: 'Created',
        timestamp: '2026-01-01T00:00:00+0000',
        fields: {},
        changedFields: [],
      })),
    })
    const ts = String(Math.floor(Date.now() / 1000))
    // Before, all 100 reads started at once: past the connection's 8 at once and 64 queued, the rest were
    // 429s, the call answered 503 and BambooHR's retries met the same.
    expect((await signedCall(hook, body, ts, sign(key, body, ts))).status).toBe(200)
    const delivered = () => server.receiver.accepted(hook).flatMap((d) => d.data.map((r) => r.id))
    await server.receiver.waitFor(() => delivered().length === added.length, 30_000, 'the bulk import')
    expect(new Set(delivered())).toEqual(new Set(added.map((e) => String(e.id))))
    expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
  })

  it('leaves out a created employee the key may not see, delivers the others, and stays healthy', async () => {
    // Added before the webhook exists; an administrator then takes one out of the key user's access level.
    const seen = emu.state.addEmployee({ firstName: 'Seen', lastName: 'Employee' })
    const unseen = emu.state.addEmployee({ firstName: 'Unseen', lastName: 'Employee' })
    emu.state.hideEmployee(unseen.id)
    try {
      const hook = await hookFor('created')
      const key = [...emu.state.hooks.hooks.values()].at(-1)!.privateKey
      // BambooHR pushes a creation whoever may see the employee (`employee.created`: "does not enforce
      // permission checking"), and the read back is then a 403.
      const bodyOf = (ids: number[]) =>
        JSON.stringify({
          employees: ids.map((id) => ({
            id: String(id),
            action: 'Created',
            timestamp: '2026-01-01T00:00:00+0000',
            fields: {},
            changedFields: [],
          })),
        })
      const send = (text: string, ts: string) => signedCall(hook, text, ts, sign(key, text, ts))
      const now = Math.floor(Date.now() / 1000)
      expect((await send(bodyOf([seen.id, unseen.id]), String(now))).status).toBe(200)
      const delivered = () => server.receiver.accepted(hook).flatMap((d) => d.data.map((r) => r.id))
      await server.receiver.waitFor(() => delivered().length > 0, 15_000, 'the employee the key sees')
      expect(delivered()).toEqual([String(seen.id)])
      // Calls naming only employees the key may not see deliver nothing and are no failure to read: the
      // webhook stays healthy however many come (three failures would turn it unhealthy).
      for (const later of [1, 2, 3]) {
        expect((await send(bodyOf([unseen.id]), String(now + later))).status).toBe(200)
      }
      const webhook = await server.api<Rec>('GET', `/unified/webhook/${hook}`)
      expect(webhook.body.is_healthy).toBe(true)
      const unhealthy = (await notificationsOf(server, hook)).filter((n) => n.event === 'WEBHOOK_UNHEALTHY')
      expect(unhealthy).toEqual([])
      expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
    } finally {
      emu.state.hidden.delete(unseen.id)
    }
  })

  it("accepts BambooHR's late retries with their first timestamp and ISO 8601 timestamps, and delivers a call sent twice once", async () => {
    const hook = await hookFor('updated')
    const key = [...emu.state.hooks.hooks.values()].at(-1)!.privateKey
    const bodyOf = (id: string) =>
      JSON.stringify({
        employees: [
          {
            id,
            action: 'Updated',
            timestamp: '2026-01-01T00:00:00+0000',
            fields: { firstName: id },
            changedFields: ['firstName'],
          },
        ],
      })
    const send = (text: string, ts: string) => signedCall(hook, text, ts, sign(key, text, ts))
    // BambooHR's fifth retry comes 5 + 10 + 20 + 40 + 80 minutes after the first call.
    const lastRetry = String(Math.floor(Date.now() / 1000) - 155 * 60)
    expect((await send(bodyOf('902'), lastRetry)).status).toBe(200)
    // The same signed call again (a replay, or BambooHR repeating itself) is acknowledged, not delivered.
    expect((await send(bodyOf('902'), lastRetry)).status).toBe(200)
    expect((await send(bodyOf('903'), new Date().toISOString())).status).toBe(200)
    await server.receiver.waitFor(
      () => server.receiver.accepted(hook).some((d) => d.data.some((r) => r.id === '903')),
      15_000,
      'the call after the replay',
    )
    expect(server.receiver.accepted(hook).flatMap((d) => d.data.map((r) => r.id))).toEqual(['902', '903'])
    expect((await server.api('DELETE', `/unified/webhook/${hook}`)).status).toBe(200)
  })

  it('polls a webhook with filters (BambooHR cannot filter what it pushes), and refuses native with filters', async () => {
    const locations = (await server.api<Rec[]>('GET', `/hris/${conn}/location`)).body
    const all = (await server.api<Rec[]>('GET', `/hris/${conn}/employee?fields=id`)).body
    const inLocation = async (id: unknown) =>
      (await server.api<Rec[]>('GET', `/hris/${conn}/employee?fields=id&location_id=${id}`)).body
    let location: unknown
    let expected: Rec[] = []
    for (const l of locations) {
      const listed = await inLocation(l.id)
      if (listed.length > 0 && listed.length < all.length) {
        location = l.id
        expected = listed
        break
      }
    }
    expect(location, 'a location holding some but not all employees').toBeDefined()

    const made = await server.api<{ id: string; webhook_type: string; filters: Rec }>(
      'POST',
      '/unified/webhook?include_all=true',
      {
        connection_id: conn,
        object_type: 'hris_employee',
        event: 'created',
        hook_url: server.receiver.url,
        fields: 'id',
        filters: { location_id: String(location) },
      },
    )
    expect(made.status, made.text).toBe(200)
    expect(made.body.webhook_type).toBe('virtual')
    expect(made.body.filters).toEqual({ location_id: String(location) })
    await server.receiver.waitFor(
      () => server.receiver.accepted(made.body.id).some((d) => d.type === 'INITIAL-COMPLETE'),
      15_000,
      'filtered backfill',
    )
    const delivered = server.receiver.accepted(made.body.id).flatMap((d) => d.data as Rec[])
    expect(delivered.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort())

    const native = await server.api<{ message: string }>('POST', '/unified/webhook', {
      connection_id: conn,
      object_type: 'hris_employee',
      event: 'created',
      hook_url: server.receiver.url,
      webhook_type: 'native',
      filters: { location_id: String(location) },
    })
    expect(native.status, native.text).toBe(400)
    expect(native.body.message).toMatch(/^filters: /)
    expect(native.body.message).toContain('BambooHR')

    // Filters cannot be added to a native webhook later either.
    const pushed = await hookFor('updated')
    const patched = await server.api<{ message: string }>('PATCH', `/unified/webhook/${pushed}`, {
      connection_id: conn,
      object_type: 'hris_employee',
      event: 'updated',
      hook_url: server.receiver.url,
      filters: { location_id: String(location) },
    })
    expect(patched.status, patched.text).toBe(400)
    expect(patched.body.message).toMatch(/^filters: /)
    for (const id of [made.body.id, pushed]) {
      expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    }
  })

  it('passes on BambooHR refusing a subscription to an address that is not https', async () => {
    const strict = await startBamboohrEmulator({ seed: 2, employees: 2 })
    try {
      const strictConn = await server.connect(bamboohrConnection(strict.url))
      const hook = await nativeSubscribe<{ message: string }>(strictConn, 'created')
      expect(hook.status, hook.text).toBe(400)
      expect(hook.body.message).toContain('url must begin with https://')
      expect((await server.api<Rec[]>('GET', `/unified/webhook?connection_id=${strictConn}`)).body).toEqual(
        [],
      )
    } finally {
      await strict.close()
    }
  })
  it("subscribes with the fields the key's user may monitor and post, when its access level leaves some out", async () => {
    // A key whose user may not see pay rates: BambooHR refuses a webhook naming one with a 403 (create-webhook).
    const narrow = await startBamboohrEmulator({
      seed: 2,
      employees: 2,
      insecureHookUrls: true,
      restrictedFields: ['payRate'],
    })
    try {
      const narrowConn = await server.connect(bamboohrConnection(narrow.url))
      const hook = await nativeSubscribe<{ id: string }>(narrowConn, 'updated')
      expect(hook.status, hook.text).toBe(200)
      const [made] = [...narrow.state.hooks.hooks.values()]
      expect(made?.monitorFields).toEqual(expect.arrayContaining(['firstName', 'jobTitle', 'payType']))
      expect(made?.monitorFields).not.toContain('payRate')
      expect(Object.keys(made?.postFields ?? {})).toEqual(
        expect.arrayContaining(['firstName', 'displayName']),
      )
      expect(Object.keys(made?.postFields ?? {})).not.toContain('payRate')
      expect((await server.api('DELETE', `/unified/webhook/${hook.body.id}`)).status).toBe(200)
    } finally {
      await narrow.close()
    }
  })

  it('subscribes again when BambooHR no longer has the webhook, with the new private key, and tells the user', async () => {
    const id = await hookFor('created')
    const ours = () =>
      [...emu.state.hooks.hooks.values()].filter((h) => h.url.endsWith(`/native-webhooks/${id}`))
    const [first] = ours()
    expect(first).toBeDefined()
    expect((await employeeWrite('/employees/', { firstName: 'Before', lastName: 'Gap' })).status).toBe(201)
    await server.receiver.waitFor(() => server.receiver.accepted(id).length === 1, 15_000, 'before the gap')
    expect((await checkNow(server, id)).is_healthy).toBe(true)
    expect(ours()).toEqual([first])

    // An admin deletes it (delete-webhook); BambooHR then calls nothing for it.
    const removedAt = new Date().toISOString()
    const deleted = await fetch(`${gateway()}/webhooks/${first?.id}/`, {
      method: 'DELETE',
      headers: { authorization: basic },
    })
    expect(deleted.status).toBe(200)
    expect(ours()).toEqual([])

    const checked = await checkNow(server, id)
    expect(checked.is_healthy).toBe(true)
    const again = ours()
    expect(again).toHaveLength(1)
    expect(again[0]?.id).not.toBe(first?.id)
    expect(again[0]?.events).toEqual(['employee_with_fields.created'])
    expect(again[0]?.privateKey).not.toBe(first?.privateKey)

    // Calls signed with the new key are accepted: the push reaches the receiver again.
    const added = await employeeWrite('/employees/', { firstName: 'After', lastName: 'Gap' })
    expect(added.status).toBe(201)
    const employeeId = added.headers.get('location')!.split('/').pop()!
    await server.receiver.waitFor(() => server.receiver.accepted(id).length === 2, 15_000, 'after the gap')
    expect(server.receiver.accepted(id)[1]?.data).toEqual([
      expect.objectContaining({ id: employeeId, first_name: 'After', last_name: 'Gap' }),
    ])

    const notes = (await notificationsOf(server, id)).filter((n) => n.event === 'WEBHOOK_UNHEALTHY')
    expect(notes).toHaveLength(1)
    const description = String(notes[0]?.description)
    expect(description).toContain(`webhook ${id}`)
    expect(description).toContain('bamboohr subscription was gone')
    const since = /since (\S+) /.exec(description)?.[1] ?? ''
    expect(Date.parse(since)).toBeLessThanOrEqual(Date.parse(removedAt))
    for (const key of [first?.privateKey, again[0]?.privateKey]) expect(description).not.toContain(key)
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    expect(ours()).toEqual([])
  })

  it('removes the subscription while the connection is not granted the read, and subscribes again once it is', async () => {
    const narrowed = await server.connect(bamboohrConnection(emu.url))
    const id = await server.nativeWebhook({
      connection_id: narrowed,
      object_type: 'hris_employee',
      event: 'created',
    })
    const ours = () =>
      [...emu.state.hooks.hooks.values()].filter((h) => h.url.endsWith(`/native-webhooks/${id}`))
    expect(ours()).toHaveLength(1)
    const granted = (await server.api<{ permissions: string[] }>('GET', `/unified/connection/${narrowed}`))
      .body.permissions
    const patch = (permissions: string[]) =>
      server.api('PATCH', `/unified/connection/${narrowed}`, { permissions })
    expect((await patch(granted.filter((p) => p !== 'hris_employee_read'))).status).toBe(200)
    await checkNow(server, id)
    // BambooHR would go on sending employees the connection may no longer read: nothing is left there.
    expect(ours()).toEqual([])
    expect((await patch(granted)).status).toBe(200)
    await checkNow(server, id)
    expect(ours()).toHaveLength(1)
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
  })

  it('counts a failed re-subscription against health: unhealthy after 3, healthy once it succeeds', async () => {
    const id = await hookFor('updated')
    const ours = () =>
      [...emu.state.hooks.hooks.values()].filter((h) => h.url.endsWith(`/native-webhooks/${id}`))
    const [first] = ours()
    emu.state.hooks.hooks.delete(String(first?.id))
    // BambooHR refuses the new webhook three checks in a row (a 403, as for fields the user may not read).
    emu.fault({ status: 403, times: 3, method: 'POST', pathPattern: '/webhooks/?$' })
    expect((await checkNow(server, id)).is_healthy).toBe(true)
    expect((await checkNow(server, id)).is_healthy).toBe(true)
    expect((await checkNow(server, id)).is_healthy).toBe(false)
    expect(ours()).toEqual([])
    const unhealthy = (await notificationsOf(server, id)).filter((n) => n.event === 'WEBHOOK_UNHEALTHY')
    expect(unhealthy).toHaveLength(1)
    expect(String(unhealthy[0]?.description)).toContain('subscription is gone and subscribing again failed')
    // The next check subscribes: healthy again, and the gap is told.
    expect((await checkNow(server, id)).is_healthy).toBe(true)
    expect(ours()).toHaveLength(1)
    const notes = (await notificationsOf(server, id)).filter((n) => n.event === 'WEBHOOK_UNHEALTHY')
    expect(notes).toHaveLength(2)
    expect(notes.filter((n) => String(n.description).includes('subscription was gone at'))).toHaveLength(1)
    expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
  })
})
