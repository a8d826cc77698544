import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { NativeCall } from '../types.js'
import { bamboohrEmployeePushes, bamboohrSignatureValid } from './native-webhooks.js'

const KEY = 'private-key'
const BODY = '{"employees":[{"id":"7","action":"Created","fields":{"firstName":"Ada"}}]}'
const NOW = Date.parse('2026-05-21T14:00:00Z')

function call(timestamp: string, body = BODY, key = KEY): NativeCall {
  const signature = createHmac('sha256', key)
    .update(body + timestamp)
    .digest('hex')
  return {
    headers: { 'x-bamboohr-timestamp': timestamp, 'x-bamboohr-signature': signature },
    rawBody: body,
    body: JSON.parse(body),
  } as NativeCall
}

const minutes = (n: number) => n * 60_000
const unixSeconds = (ms: number) => String(Math.floor(ms / 1000))

describe("BambooHR's signed calls", () => {
  it('takes the timestamp as Unix seconds or ISO 8601, signed over the header text as sent', () => {
    expect(bamboohrSignatureValid(call(unixSeconds(NOW)), KEY, NOW)).toBe(true)
    expect(bamboohrSignatureValid(call('2026-05-21T14:00:00Z'), KEY, NOW)).toBe(true)
    expect(bamboohrSignatureValid(call('2026-05-21T14:00:00+00:00'), KEY, NOW)).toBe(true)
    expect(bamboohrSignatureValid(call('2026-05-21T16:00:00+0200'), KEY, NOW)).toBe(true)
    // A signature over another rendering of the same instant is not this call's signature.
    const other = call('2026-05-21T14:00:00Z')
    const moved = {
      ...other,
      headers: { ...other.headers, 'x-bamboohr-timestamp': '2026-05-21T14:00:00+00:00' },
    }
    expect(bamboohrSignatureValid(moved, KEY, NOW)).toBe(false)
  })

  it('refuses a timestamp that is no instant, or one without its time zone', () => {
    for (const ts of ['', 'yesterday', '2026-05-21', '2026-05-21T14:00:00', '2026-13-45T99:00:00Z']) {
      expect(bamboohrSignatureValid(call(ts), KEY, NOW), ts).toBe(false)
    }
  })

  it("admits BambooHR's last documented retry (80 minutes after the 5, 10, 20 and 40) but not a call older than that", () => {
    const lastRetry = NOW - minutes(5 + 10 + 20 + 40 + 80)
    expect(bamboohrSignatureValid(call(unixSeconds(lastRetry)), KEY, NOW)).toBe(true)
    expect(bamboohrSignatureValid(call(new Date(lastRetry).toISOString()), KEY, NOW)).toBe(true)
    expect(bamboohrSignatureValid(call(unixSeconds(NOW - minutes(4 * 60))), KEY, NOW)).toBe(false)
    expect(bamboohrSignatureValid(call(unixSeconds(NOW + minutes(4 * 60))), KEY, NOW)).toBe(false)
  })

  it('names a call by its signature, remembered as long as a copy could still authenticate', () => {
    const token = (ts: string) => bamboohrEmployeePushes.callToken?.(call(ts))
    const once = token(unixSeconds(NOW))
    expect(once).toBeDefined()
    expect(once?.token).toBe(token(unixSeconds(NOW))?.token)
    expect(once?.token).not.toBe(token(unixSeconds(NOW + 1000))?.token)
    expect(once?.keepUntilMs).toBeGreaterThanOrEqual(NOW + minutes(155))
  })
})

describe("BambooHR's field-based payloads", () => {
  const push = (event: 'created' | 'updated' | 'deleted') => ({
    event,
    credentials: { api_key: 'k', company_domain: 'Acme' },
    settings: {},
  })
  const entry = (action: string, fields: unknown, changedFields: unknown = []) =>
    ({
      body: {
        employees: [{ id: '7', action, timestamp: '2026-01-31T18:42:00+0000', fields, changedFields }],
      },
    }) as NativeCall

  // "For Created and Deleted actions the payload will always contain empty changedFields and fields objects"
  // (https://documentation.bamboohr.com/docs/global-webhooks): the created employee is read back by id.
  // BambooHR pushes a creation whoever may see the employee: one the key may not see (a 403) is left out.
  it('reads a created employee back by id, its fields being empty', () => {
    for (const empty of [{}, []]) {
      expect(bamboohrEmployeePushes.records(entry('Created', empty), push('created'))).toEqual({
        ids: ['7'],
        removed: false,
        forbiddenMeansHidden: true,
      })
    }
  })

  it('delivers a deleted employee as its id, and an updated one from its posted fields', () => {
    expect(bamboohrEmployeePushes.records(entry('Deleted', []), push('deleted'))).toEqual([{ id: '7' }])
    expect(
      bamboohrEmployeePushes.records(entry('Updated', { firstName: 'Ada' }, ['firstName']), push('updated')),
    ).toEqual([expect.objectContaining({ id: '7', first_name: 'Ada', company_id: 'acme' })])
  })
})
