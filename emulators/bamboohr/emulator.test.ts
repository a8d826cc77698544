import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BamboohrEmulator, DEFAULT_BAMBOOHR_API_KEY, startBamboohrEmulator } from './index.js'

describe('BambooHR emulator', () => {
  let emu: BamboohrEmulator
  let api: string
  const basic = `Basic ${Buffer.from(`${DEFAULT_BAMBOOHR_API_KEY}:x`).toString('base64')}`
  const json = { authorization: basic, accept: 'application/json' }

  beforeAll(async () => {
    emu = await startBamboohrEmulator({ seed: 3, employees: 12 })
    api = `${emu.url}/api/gateway.php/acme/v1`
  })
  afterAll(() => emu.close())

  /** `POST /webhooks/` at `base` of a JSON webhook named `h` to an https address, with `body`'s settings. */
  const createWebhook = (base: string, body: Record<string, unknown>) =>
    fetch(`${base}/webhooks/`, {
      method: 'POST',
      headers: { ...json, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'h', url: 'https://hooks.example/in', format: 'json', ...body }),
    })
  const report = (body: unknown, headers: Record<string, string> = {}, query = '?format=JSON') =>
    fetch(`${api}/reports/custom${query}`, {
      method: 'POST',
      headers: { ...json, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })

  it('takes the key as Basic user name, only for its own company, with the detail in a header', async () => {
    expect((await fetch(`${api}/company_information`, { headers: json })).status).toBe(200)
    const none = await fetch(`${api}/company_information`, { headers: { accept: 'application/json' } })
    expect(none.status).toBe(401)
    expect(none.headers.get('x-bamboohr-error-message')).toBe('Invalid API key')
    expect(await none.text()).toBe('')
    const other = await fetch(`${emu.url}/api/gateway.php/globex/v1/company_information`, { headers: json })
    expect(other.status).toBe(401)
  })

  it('answers XML unless asked for JSON', async () => {
    const xml = await fetch(`${api}/meta/lists`, { headers: { authorization: basic } })
    expect(xml.headers.get('content-type')).toMatch(/text\/xml/)
    const viaFormat = await fetch(`${api}/meta/lists?format=json`, { headers: { authorization: basic } })
    expect(Array.isArray(await viaFormat.json())).toBe(true)
  })

  it('prints list field ids and monitor field ids as strings, option ids as numbers (specs/public.yaml)', async () => {
    const lists = (await (await fetch(`${api}/meta/lists`, { headers: json })).json()) as {
      fieldId: unknown
      alias: string
      options: { id: unknown }[]
    }[]
    const department = lists.find((l) => l.alias === 'department')
    expect(department?.fieldId).toBe('4')
    for (const list of lists) {
      expect(typeof list.fieldId).toBe('string')
      for (const option of list.options) expect(typeof option.id).toBe('number')
    }
    const monitor = (await (await fetch(`${api}/webhooks/monitor_fields`, { headers: json })).json()) as {
      fields: { id: unknown; name: unknown; alias: unknown }[]
    }
    expect(monitor.fields.length).toBeGreaterThan(0)
    for (const field of monitor.fields) {
      expect(typeof field.id).toBe('string')
      expect(field.id).toMatch(/^\d+$/)
      expect(typeof field.name).toBe('string')
    }
    expect(monitor.fields.map((f) => f.alias)).toContain('firstName')
  })

  it('reports every employee, filters by lastChanged with includeNull, and checks format and body type', async () => {
    const all = await report({ fields: ['firstName', 'status', 'nonsense', 'ssn'] })
    const body = (await all.json()) as { fields: { id: string }[]; employees: Record<string, string>[] }
    expect(body.employees).toHaveLength(12)
    expect(body.fields.map((f) => f.id)).toEqual(['firstName', 'status'])
    expect(Object.keys(body.employees[0] ?? {})).toEqual(['id', 'firstName', 'status'])
    const since = '2024-03-01T00:00:00+00:00'
    const changed = [...emu.state.employees.values()].filter(
      (e) => e.fields.lastChanged && Date.parse(e.fields.lastChanged) >= Date.parse(since),
    )
    const never = [...emu.state.employees.values()].filter((e) => !e.fields.lastChanged)
    const strict = await report({
      fields: ['id'],
      filters: { lastChanged: { value: since, includeNull: 'no' } },
    })
    expect(((await strict.json()) as { employees: unknown[] }).employees).toHaveLength(changed.length)
    const loose = await report({ fields: ['id'], filters: { lastChanged: { value: since } } })
    expect(((await loose.json()) as { employees: unknown[] }).employees).toHaveLength(
      changed.length + never.length,
    )
    const compact = await report({
      fields: ['id'],
      filters: { lastChanged: { value: '2024-03-01T00:00:00+0000' } },
    })
    expect(((await compact.json()) as { employees: unknown[] }).employees).toHaveLength(
      changed.length + never.length,
    )
    // Only the offset forms BambooHR documents: `Z`, milliseconds or no offset are refused.
    for (const value of [
      '2024-03-01T00:00:00.000Z',
      '2024-03-01T00:00:00Z',
      '2024-03-01T00:00:00',
      '2024-03-01',
    ])
      expect((await report({ fields: ['id'], filters: { lastChanged: { value } } })).status).toBe(400)
    expect((await report({ fields: [] }, { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(
      400,
    )
    expect((await report({ fields: [] }, {}, '?format=bogus')).status).toBe(404)
    expect((await report({ fields: [] }, { accept: '*/*' }, '')).status).toBe(404)
    expect((await report({ fields: Array.from({ length: 401 }, (_, i) => `f${i}`) })).status).toBe(400)
  })

  it("leaves fields the key's user may not read out of reads and webhook field lists, and refuses a webhook naming one", async () => {
    const local = await startBamboohrEmulator({ seed: 3, employees: 3, restrictedFields: ['payRate'] })
    const localApi = `${local.url}/api/gateway.php/acme/v1`
    try {
      const read = await fetch(`${localApi}/employees/100?fields=firstName,payRate`, { headers: json })
      expect(Object.keys((await read.json()) as object)).toEqual(['id', 'firstName'])
      const aliases = async (path: string) =>
        (
          (await (await fetch(`${localApi}${path}`, { headers: json })).json()) as {
            fields: { alias: string }[]
          }
        ).fields.map((f) => f.alias)
      const monitorable = await aliases('/webhooks/monitor_fields')
      const postable = await aliases('/webhooks/post-fields')
      expect(monitorable).toContain('payType')
      expect(monitorable).not.toContain('payRate')
      expect(monitorable).not.toContain('displayName')
      expect(postable).toEqual(expect.arrayContaining(['payType', 'displayName', 'lastChanged']))
      expect(postable).not.toContain('payRate')
      const refused = await createWebhook(localApi, {
        monitorFields: ['payType'],
        postFields: { payRate: 'payRate' },
      })
      expect(refused.status).toBe(403)
      expect(await refused.json()).toMatchObject({
        errors: [{ postFields: [{ id: expect.any(Number), name: 'payRate' }] }],
      })
    } finally {
      await local.close()
    }
  })

  it('reads one employee with the asked fields, 0 as the key user, 404 for others', async () => {
    const one = await fetch(`${api}/employees/101?fields=firstName,hireDate`, { headers: json })
    expect(Object.keys((await one.json()) as object)).toEqual(['id', 'firstName', 'hireDate'])
    const self = (await (await fetch(`${api}/employees/0`, { headers: json })).json()) as { id: string }
    expect(self.id).toBe('100')
    expect((await fetch(`${api}/employees/99999`, { headers: json })).status).toBe(404)
  })

  /** A local receiver of the emulator's webhook calls: every body, with its headers, answered 200. */
  async function startHookReceiver() {
    const { createServer } = await import('node:http')
    const received: { body: string; headers: Record<string, unknown> }[] = []
    const receiver = createServer((req, res) => {
      let text = ''
      req.on('data', (c) => {
        text += c
      })
      req.on('end', () => {
        received.push({ body: text, headers: req.headers })
        res.writeHead(200).end()
      })
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    return { receiver, received }
  }

  /** A JSON webhook on `localApi` watching jobTitle, posting `postFields` to `receiver`. */
  function jobTitleWebhook(
    localApi: string,
    receiver: import('node:http').Server,
    postFields: Record<string, string>,
  ) {
    return fetch(`${localApi}/webhooks/`, {
      method: 'POST',
      headers: { ...json, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'all',
        url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/in`,
        format: 'json',
        monitorFields: ['jobTitle'],
        postFields,
      }),
    })
  }

  it("answers 403 for an employee outside the key's access level, leaves it out of reports, and pushes only its creation and deletion", async () => {
    const { receiver, received } = await startHookReceiver()
    const local = await startBamboohrEmulator({
      seed: 3,
      employees: 4,
      insecureHookUrls: true,
      hiddenEmployees: [102],
    })
    const localApi = `${local.url}/api/gateway.php/acme/v1`
    try {
      const denied = await fetch(`${localApi}/employees/102?fields=firstName`, { headers: json })
      expect(denied.status).toBe(403)
      expect(denied.headers.get('x-bamboohr-error-message')).toBe('Permission denied to view employee')
      expect(await denied.text()).toBe('')
      expect((await fetch(`${localApi}/employees/103`, { headers: json })).status).toBe(200)
      const report = await fetch(`${localApi}/reports/custom?format=JSON`, {
        method: 'POST',
        headers: { ...json, 'content-type': 'application/json' },
        body: JSON.stringify({ fields: ['firstName'] }),
      })
      const rows = ((await report.json()) as { employees: { id: string }[] }).employees
      expect(rows.map((e) => e.id)).toEqual(['100', '101', '103'])
      const update = await fetch(`${localApi}/employees/102`, {
        method: 'POST',
        headers: { ...json, 'content-type': 'application/json' },
        body: JSON.stringify({ jobTitle: 'Chief' }),
      })
      expect(update.status).toBe(403)
      const made = await jobTitleWebhook(localApi, receiver, { jobTitle: 'jobTitle' })
      expect(made.status).toBe(201)
      // An administrator changes the hidden employee, then one the key sees, then deletes the hidden one.
      local.state.updateEmployee(local.state.employees.get(102)!, { jobTitle: 'Chief' })
      local.state.updateEmployee(local.state.employees.get(103)!, { jobTitle: 'Chief' })
      local.state.deleteEmployee(102)
      const deadline = Date.now() + 5000
      while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const entries = received.map(
        (r) => (JSON.parse(r.body) as { employees: Record<string, unknown>[] }).employees[0],
      )
      expect(entries.map((e) => [e?.id, e?.action]).sort()).toEqual([
        ['102', 'Deleted'],
        ['103', 'Updated'],
      ])
    } finally {
      receiver.close()
      await local.close()
    }
  })

  it('creates webhooks only as the Webhooks API allows, with the private key once', async () => {
    const hook = (body: Record<string, unknown>) =>
      createWebhook(api, { monitorFields: ['firstName'], ...body })
    const insecure = await hook({ url: 'http://hooks.example/in' })
    expect(insecure.status).toBe(400)
    expect(await insecure.json()).toEqual({
      errors: [{ error: 'Invalid request body', issues: ['url must begin with https://'] }],
    })
    expect((await hook({ monitorFields: [] })).status).toBe(400)
    expect((await hook({ events: ['employee.created', 'employee_with_fields.created'] })).status).toBe(400)
    const denied = await hook({ monitorFields: ['lastChanged', 'nope'], postFields: { ssn: 'ssn' } })
    expect(denied.status).toBe(403)
    expect(await denied.json()).toEqual({
      errors: [
        {
          error: 'Permission denied to the following fields',
          // Known fields carry their id (never null there, WebhookSubErrorProperty); unknown ones have none.
          monitorFields: [{ id: expect.any(Number), name: 'lastChanged' }],
          postFields: [{ id: expect.any(Number), name: 'ssn' }],
          unknownFields: [{ id: null, name: 'nope' }],
        },
      ],
    })
    const made = await hook({ postFields: { firstName: 'First' } })
    expect(made.status).toBe(201)
    const created = (await made.json()) as Record<string, unknown>
    expect(created).toMatchObject({
      name: 'h',
      format: 'json',
      events: expect.arrayContaining(['employee_with_fields.updated']),
    })
    expect(String(created.privateKey)).toMatch(/^[0-9a-f]{64}$/)
    const read = (await (await fetch(`${api}/webhooks/${created.id}/`, { headers: json })).json()) as Record<
      string,
      unknown
    >
    expect(read).not.toHaveProperty('privateKey')
    const removed = await fetch(`${api}/webhooks/${created.id}/`, { method: 'DELETE', headers: json })
    expect(await removed.text()).toBe('Web hook has been deleted.')
    const again = await fetch(`${api}/webhooks/${created.id}/`, { method: 'DELETE', headers: json })
    expect(again.status).toBe(404)
  })

  it('signs each employee change with the webhook key over the body and timestamp', async () => {
    const { createHmac } = await import('node:crypto')
    const { receiver, received } = await startHookReceiver()
    const local = await startBamboohrEmulator({ seed: 3, employees: 3, insecureHookUrls: true })
    const localApi = `${local.url}/api/gateway.php/acme/v1`
    try {
      const made = await jobTitleWebhook(localApi, receiver, {
        firstName: 'First Name',
        jobTitle: 'jobTitle',
      })
      const { privateKey } = (await made.json()) as { privateKey: string }
      const write = (path: string, body: unknown) =>
        fetch(`${localApi}${path}`, {
          method: 'POST',
          headers: { ...json, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      expect((await write('/employees/', { firstName: 'Ann' })).status).toBe(400)
      const added = await write('/employees/', { firstName: 'Ann', lastName: 'Lee', jobTitle: 'Clerk' })
      expect(added.status).toBe(201)
      const id = added.headers.get('location')!.split('/').pop()!
      // A change to an unmonitored field sends nothing; a monitored one does.
      expect((await write(`/employees/${id}`, { lastName: 'Li' })).status).toBe(200)
      expect((await write(`/employees/${id}`, { jobTitle: 'Lead' })).status).toBe(200)
      local.state.deleteEmployee(Number(id))
      const deadline = Date.now() + 5000
      while (received.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      const entries = received.map(
        (r) => (JSON.parse(r.body) as { employees: Record<string, unknown>[] }).employees[0],
      )
      expect(entries.map((e) => e?.action)).toEqual(['Created', 'Updated', 'Deleted'])
      // Created and Deleted only say that it happened: empty fields and changedFields (global-webhooks).
      expect(entries[0]).toMatchObject({ id, fields: {}, changedFields: [] })
      expect(entries[1]).toMatchObject({ changedFields: ['jobTitle'], fields: { jobTitle: 'Lead' } })
      expect(entries[2]).toMatchObject({ id, fields: {}, changedFields: [] })
      // Each entry's time as BambooHR prints it: seconds and a `+0000` offset (field-based-webhooks).
      for (const e of entries) expect(e?.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/)
      for (const r of received) {
        const ts = String(r.headers['x-bamboohr-timestamp'])
        expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThan(60)
        expect(r.headers['x-bamboohr-signature']).toBe(
          createHmac('sha256', privateKey)
            .update(r.body + ts)
            .digest('hex'),
        )
      }
    } finally {
      receiver.close()
      await local.close()
    }
  })

  it('retries a call answered 5xx five times with the same timestamp and signature, and none answered 4xx', async () => {
    const { createServer } = await import('node:http')
    // What the receiver answers, by the employee's first name, call after call.
    const answers: Record<string, number[]> = { Five: [500], Twice: [500, 502, 200], Refused: [400] }
    const received: { name: string; body: string; headers: Record<string, unknown> }[] = []
    const receiver = createServer((req, res) => {
      let text = ''
      req.on('data', (c) => {
        text += c
      })
      req.on('end', () => {
        const name = String(JSON.parse(text).employees[0].fields.firstName)
        const seen = received.filter((r) => r.name === name).length
        received.push({ name, body: text, headers: req.headers })
        const plan = answers[name] ?? [200]
        res.writeHead(plan[Math.min(seen, plan.length - 1)]!).end()
      })
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    const local = await startBamboohrEmulator({
      seed: 3,
      employees: 3,
      insecureHookUrls: true,
      hookRetryDelaysMs: [20, 20, 20, 20, 20],
    })
    const localApi = `${local.url}/api/gateway.php/acme/v1`
    try {
      const made = await fetch(`${localApi}/webhooks/`, {
        method: 'POST',
        headers: { ...json, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'retried',
          url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/in`,
          format: 'json',
          // Updates carry the posted fields (a create's are empty), so each call names its employee.
          events: ['employee_with_fields.updated'],
          monitorFields: ['lastName'],
          postFields: { firstName: 'firstName' },
        }),
      })
      expect(made.status).toBe(201)
      for (const firstName of Object.keys(answers)) {
        const added = await fetch(`${localApi}/employees/`, {
          method: 'POST',
          headers: { ...json, 'content-type': 'application/json' },
          body: JSON.stringify({ firstName, lastName: 'Retry' }),
        })
        expect(added.status).toBe(201)
        const changed = await fetch(
          `${localApi}/employees/${added.headers.get('location')!.split('/').pop()}`,
          {
            method: 'POST',
            headers: { ...json, 'content-type': 'application/json' },
            body: JSON.stringify({ lastName: 'Retried' }),
          },
        )
        expect(changed.status).toBe(200)
      }
      const count = (name: string) => received.filter((r) => r.name === name).length
      const deadline = Date.now() + 5000
      // The emulator records a call once its answer is back, after the receiver has seen it: 6 + 3 + 1 calls.
      while (
        (count('Five') < 6 ||
          count('Twice') < 3 ||
          local.state.hooks.pendingRetries > 0 ||
          local.state.hooks.calls.length < 10) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(local.state.hooks.pendingRetries).toBe(0)
      // The first call and five retries; three calls until a 2xx; a 4xx is not retried.
      expect([count('Five'), count('Twice'), count('Refused')]).toEqual([6, 3, 1])
      for (const name of ['Five', 'Twice']) {
        const calls = received.filter((r) => r.name === name)
        for (const call of calls.slice(1)) {
          expect(call.body).toBe(calls[0]?.body)
          expect(call.headers['x-bamboohr-timestamp']).toBe(calls[0]?.headers['x-bamboohr-timestamp'])
          expect(call.headers['x-bamboohr-signature']).toBe(calls[0]?.headers['x-bamboohr-signature'])
        }
      }
      expect(local.state.hooks.calls.map((c) => c.attempt).filter((a) => a > 1)).toHaveLength(5 + 2)
    } finally {
      receiver.close()
      await local.close()
    }
  })
})
