import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BamboohrEmulator,
  DEFAULT_BAMBOOHR_API_KEY,
  DEFAULT_BAMBOOHR_DOMAIN,
  startBamboohrEmulator,
} from '../emulators/bamboohr/index.js'
import { type HubspotEmulator, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectHubspot } from './support/hubspot.js'
import { createConnection } from './support/integration-suite.js'

type Rec = Record<string, unknown>

/** Every key anywhere in `value`. */
function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysIn(v, into)
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      into.add(k)
      keysIn(v, into)
    }
  return into
}

/** The personal values of unified people records: names, email addresses, telephone numbers. */
function personalValues(records: Rec[]): string[] {
  return records.flatMap((r) => [
    ...[r.first_name, r.last_name].filter((v): v is string => typeof v === 'string' && v.length > 2),
    ...((r.emails as { email: string }[] | undefined) ?? []).map((e) => e.email),
    ...((r.telephones as { telephone: string }[] | undefined) ?? []).map((t) => t.telephone),
  ])
}

/**
 * `hide_sensitive` on HR and CRM tools: the raw provider records these carry name people in the providers'
 * own spellings (BambooHR's `workEmail` and `dateOfBirth`, HubSpot's `firstname` and `mobilephone`), and an
 * outside probe found them all passed on while PostHog's `$email` was removed.
 */
describe('hide_sensitive removes personal data from HR and CRM raw records, in the providers’ spellings', () => {
  let h: Harness
  let bamboo: BamboohrEmulator
  let hubspot: HubspotEmulator
  let bambooConn: string
  let hubspotConn: string

  beforeAll(async () => {
    h = await startHarness('sqlite')
    bamboo = await startBamboohrEmulator({ seed: 7, employees: 5 })
    hubspot = await startHubspotEmulator({ seed: 7, contacts: 5 })
    bambooConn = await createConnection(h, {
      integration_type: 'bamboohr',
      auth: {
        api_key: DEFAULT_BAMBOOHR_API_KEY,
        company_domain: DEFAULT_BAMBOOHR_DOMAIN,
        api_url: `${bamboo.url}/api/gateway.php`,
      },
    })
    hubspotConn = await connectHubspot(h, hubspot)
  })
  afterAll(async () => {
    await h?.close()
    await bamboo?.close()
    await hubspot?.close()
  })

  const call = (tool: string, connection: string, fields: string, hide: boolean) =>
    h.api<Rec[]>('POST', `/tools/${tool}/call`, {
      query: { connection, ...(hide ? { hide_sensitive: 'true' } : {}) },
      body: { fields, limit: 5 },
    })

  it.each([
    [
      'list_hris_employees',
      () => bambooConn,
      ['jobTitle', 'department'],
      ['workEmail', 'dateOfBirth', 'firstName'],
    ],
    ['list_crm_contacts', () => hubspotConn, ['properties', 'createdAt'], ['firstname', 'email', 'phone']],
  ])('%s', async (tool, connection, kept, personalKeys) => {
    const plain = await call(tool, connection(), 'id,first_name,last_name,emails,telephones,raw', false)
    expect(plain.status).toBe(200)
    expect(plain.body.length).toBeGreaterThan(0)
    // The provider's raw records do carry the personal keys, and the people's details.
    const plainKeys = keysIn(plain.body.map((r) => r.raw))
    for (const key of personalKeys) expect(plainKeys, key).toContain(key)
    const values = personalValues(plain.body)
    expect(values.length).toBeGreaterThan(0)
    for (const value of values) expect(JSON.stringify(plain.body)).toContain(value)

    const hidden = await call(tool, connection(), 'id,first_name,last_name,emails,telephones,raw', true)
    expect(hidden.status).toBe(200)
    expect(hidden.body.map((r) => r.id)).toEqual(plain.body.map((r) => r.id))
    const text = JSON.stringify(hidden.body)
    for (const value of values) expect(text, value).not.toContain(value)
    const hiddenKeys = keysIn(hidden.body.map((r) => r.raw))
    for (const key of personalKeys) expect(hiddenKeys, key).not.toContain(key)
    // What is not personal stays.
    for (const key of kept) expect(hiddenKeys, key).toContain(key)
  })
})
