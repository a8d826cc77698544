import { afterEach, describe, expect, it } from 'vitest'
import { createServices, type Services } from '../src/services.js'
import { dueInTurns } from '../src/webhooks/due-in-turns.js'
import { claimLease } from '../src/webhooks/leases.js'
import { testConfig } from './support/config.js'
import { propertyWebhookSpec, storeWebhooks } from './support/stored-webhook.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'

const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 12, minutes)).toISOString()

describe.each(storeKinds())("the scheduler's poll look on %s", (store) => {
  let services: Services | undefined
  let schema: string | undefined
  afterEach(async () => {
    await services?.close()
    services = undefined
    if (schema) await dropSchema(schema)
    schema = undefined
  })

  async function open(): Promise<Services> {
    schema = store === 'postgres' ? uniqueSchema() : undefined
    services = await createServices(testConfig(store), {
      background: false,
      ...(schema ? { pgSchema: schema } : {}),
    })
    return services
  }

  it('answers the same fair batch when many more are due than it takes', async () => {
    const s = await open()
    // Workspaces of 1, 2, 5 and 30 due webhooks, some paused, some with a held lease, some not due yet.
    const sizes = { one: 1, two: 2, five: 5, many: 30 }
    const all: { id: string; workspace_id: string; due: string; skipped: boolean }[] = []
    for (const [name, size] of Object.entries(sizes)) {
      const each = Array.from({ length: size + 2 }, (_, i) => ({
        id: `wh_${name}_${String(i).padStart(2, '0')}`,
        // Interleaved in time across workspaces, several due at the same minute, two of each not due yet.
        next_check_at: i < size ? at(Math.floor(((i * 7 + name.length * 3) % 60) / 4)) : at(200 + i),
        is_paused: i === 3,
      }))
      for (const w of await storeWebhooks(s, propertyWebhookSpec(name, 60), each)) {
        const leased = w.id.endsWith('_04') && (await claimLease(s.db, 'poll', w.id, 't', at(0), at(500)))
        if (w.next_check_at! <= at(100))
          all.push({
            id: w.id,
            workspace_id: w.workspace_id,
            due: w.next_check_at!,
            skipped: w.is_paused || leased,
          })
      }
    }
    // What the look promises, computed from every row: turns by due time then id, earliest turns first.
    const eligible = all.filter((w) => !w.skipped)
    const byDue = (x: { due: string; id: string }, y: { due: string; id: string }) =>
      x.due < y.due ? -1 : x.due > y.due ? 1 : x.id < y.id ? -1 : 1
    const turnOf = new Map<string, number>()
    for (const workspace of new Set(eligible.map((w) => w.workspace_id)))
      for (const [turn, w] of eligible
        .filter((e) => e.workspace_id === workspace)
        .sort(byDue)
        .entries())
        turnOf.set(w.id, turn)
    const expected = [...eligible]
      .sort((x, y) => turnOf.get(x.id)! - turnOf.get(y.id)! || byDue(x, y))
      .map((w) => ({ id: w.id, workspace_id: w.workspace_id, turn: turnOf.get(w.id)! }))
    expect(eligible.length).toBeGreaterThan(30)
    for (const limit of [1, 3, 4, 5, 9, 15, 40])
      expect(
        await dueInTurns(s.db, { due: 'next_check_at', leaseUntil: 'poll_lease_until' }, at(100), limit),
      ).toEqual(expected.slice(0, limit))
  })
})
