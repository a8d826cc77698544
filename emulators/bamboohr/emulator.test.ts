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

  it('reads one employee with the asked fields, 0 as the key user, 404 for others', async () => {
    const one = await fetch(`${api}/employees/101?fields=firstName,hireDate`, { headers: json })
    expect(Object.keys((await one.json()) as object)).toEqual(['id', 'firstName', 'hireDate'])
    const self = (await (await fetch(`${api}/employees/0`, { headers: json })).json()) as { id: string }
    expect(self.id).toBe('100')
    expect((await fetch(`${api}/employees/99999`, { headers: json })).status).toBe(404)
  })
})
