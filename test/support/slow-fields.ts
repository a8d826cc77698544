import { expect } from 'vitest'
import type { Harness, RequestOptions } from './harness.js'

type Rec = Record<string, unknown>

export interface SlowFieldCase {
  readonly optIn: boolean
  readonly fields: string | undefined
  readonly fetched: boolean
}

/**
 * Spec section 7: a slow field is fetched when `fields` names it, or when the workspace opted in and no
 * `fields` leaves it out; never otherwise.
 */
export function slowFieldCases(field: string): SlowFieldCase[] {
  return [
    { optIn: false, fields: undefined, fetched: false },
    { optIn: false, fields: 'id,status', fetched: false },
    { optIn: false, fields: `id,${field}`, fetched: true },
    { optIn: true, fields: undefined, fetched: true },
    { optIn: true, fields: 'id,status', fetched: false },
    { optIn: true, fields: `id,${field}`, fetched: true },
  ]
}

export async function setSlowFieldsOptIn(h: Harness, optIn: boolean): Promise<void> {
  await h.api('PATCH', '/unified/workspace', { body: { slow_fields_opt_in: optIn } })
}

export interface SlowFieldList {
  readonly field: string
  /** The collection to list. */
  readonly path: string
  readonly query: NonNullable<RequestOptions['query']>
  /** Forgets what the emulator was asked so far, so that only the list's own calls count. */
  readonly clearRequests: () => void
  /** The provider calls that fetch the slow field. */
  readonly fieldCalls: () => readonly unknown[]
  /** How many such calls the list makes when the field is fetched. */
  readonly callsWhenFetched: number
}

/**
 * Lists a page as the case says (the workspace's opt-in, the case's `fields`) and expects 200, the provider
 * asked for the field exactly when the case fetches it, and every record carrying it exactly then.
 */
export async function listSlowFieldCase(h: Harness, c: SlowFieldCase, list: SlowFieldList): Promise<Rec[]> {
  await setSlowFieldsOptIn(h, c.optIn)
  list.clearRequests()
  const res = await h.api<Rec[]>('GET', list.path, {
    query: { ...list.query, ...(c.fields ? { fields: c.fields } : {}) },
  })
  expect(res.status).toBe(200)
  expect(list.fieldCalls()).toHaveLength(c.fetched ? list.callsWhenFetched : 0)
  // Fetched, the field shows on the records that have it (one with none leaves it out, as an empty list is
  // everywhere); not fetched, on none.
  expect(res.body.some((record) => list.field in record)).toBe(c.fetched)
  return res.body
}

/**
 * `raw.<field>` asks the provider for the field as it has it, in one call; `raw` alone leaves it out and asks
 * nothing. Answers the provider's own value of the field, for the caller's checks.
 */
export async function expectRawSlowField(
  h: Harness,
  item: string,
  list: Pick<SlowFieldList, 'field' | 'clearRequests' | 'fieldCalls'>,
): Promise<unknown> {
  const withField = await h.api<Rec>('GET', item, { query: { fields: `id,raw.${list.field}` } })
  expect(withField.status).toBe(200)
  expect(list.fieldCalls()).toHaveLength(1)
  list.clearRequests()
  const raw = await h.api<Rec>('GET', item, { query: { fields: 'id,raw' } })
  expect((raw.body.raw as Rec)[list.field]).toBeUndefined()
  expect(list.fieldCalls()).toHaveLength(0)
  return (withField.body.raw as Rec)[list.field]
}
