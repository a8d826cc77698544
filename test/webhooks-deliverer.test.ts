import { PassThrough } from 'node:stream'
import type { Kysely } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createServices, type Services } from '../src/services.js'
import { removeDeliveredDeliveriesMigration } from '../src/store/migrations/0010-remove-delivered-deliveries.js'
import { removeGivenUpDeliveriesMigration } from '../src/store/migrations/0012-remove-given-up-deliveries.js'
import { Deliverer } from '../src/webhooks/deliverer.js'
import { DeliveryStore } from '../src/webhooks/delivery-store.js'
import { WebhookHealth } from '../src/webhooks/health.js'
import type { SendOutcome, WebhookSender } from '../src/webhooks/http-sender.js'
import { claimLease, releaseLease } from '../src/webhooks/leases.js'
import type { WebhookWarn } from '../src/webhooks/native.js'
import { commitNativeDeliveries } from '../src/webhooks/native-store.js'
import { deliveryPages } from '../src/webhooks/pages.js'
import { DELIVER_JOB } from '../src/webhooks/scheduler.js'
import { testConfig } from './support/config.js'
import { propertyWebhookSpec, storeWebhooks, useStoredWebhook } from './support/stored-webhook.js'
import { dropSchema, storeKinds, uniqueSchema } from './support/stores.js'

/** A sender that records what it was given and may act while a delivery is "on the wire". */
function recordingSender(onSend: (count: number) => Promise<void> = async () => undefined) {
  const sent: { body: string; id: string }[] = []
  const sender = {
    async send(_url: string, body: string, headers: Readonly<Record<string, string>>): Promise<SendOutcome> {
      sent.push({ body, id: headers['x-unigate-delivery-id']! })
      await onSend(sent.length)
      return { ok: true, status: 200 }
    },
  } as unknown as WebhookSender
  return { sender, sent }
}

/** A sender that notes the first record id of each page it is given in `sent` and answers as `answer` says. */
function pageSender(
  sent: string[],
  answer: (id: string) => SendOutcome | Promise<SendOutcome>,
): WebhookSender {
  return {
    async send(_url: string, body: string): Promise<SendOutcome> {
      const id = JSON.parse(body).data[0].id as string
      sent.push(id)
      return answer(id)
    },
  } as unknown as WebhookSender
}

describe.each(storeKinds())('the deliverer on %s', (store) => {
  const storedWebhook = useStoredWebhook(store)

  async function webhookWithPages(pages: number) {
    const { services, webhook } = await storedWebhook(propertyWebhookSpec('deliverer'))
    const now = new Date().toISOString()
    const records = Array.from({ length: pages }, (_, i) => ({ id: `p${i}`, name: `Property ${i}` }))
    await commitNativeDeliveries(services.db, webhook.id, deliveryPages(records, 1, 'VIRTUAL'), now)
    return { services, webhook }
  }

  /** A webhook of its own for each of `ids`, each holding one page stored a minute ago. */
  async function holdersOfOnePage(s: Services, name: string, ids: readonly string[]) {
    await storeWebhooks(
      s,
      propertyWebhookSpec(name),
      ids.map((id) => ({ id })),
    )
    const past = new Date(Date.now() - 60_000).toISOString()
    for (const id of ids)
      await commitNativeDeliveries(s.db, id, deliveryPages([{ id: 'p0', name: 'P' }], 1, 'VIRTUAL'), past)
  }

  function delivererOf(
    s: Services,
    sender: WebhookSender,
    warn: WebhookWarn = () => undefined,
    clock: () => number = Date.now,
  ) {
    const { webhooks } = s
    return new Deliverer(
      s.db,
      webhooks.store,
      webhooks.deliveries,
      s.connectionStore,
      s.workspaces,
      sender,
      new WebhookHealth(s.db, webhooks.notifications, 3),
      { minuteMs: 60_000, maxAttempts: 3, leaseMs: 60_000 },
      warn,
      clock,
    )
  }

  it('sends every pending page once, in order, past the pages it reads at a time', async () => {
    const { services: s, webhook } = await webhookWithPages(23)
    const { sender, sent } = recordingSender()
    await delivererOf(s, sender).deliver(webhook.id)
    expect(sent.map((d) => JSON.parse(d.body).data[0].id)).toEqual(
      Array.from({ length: 23 }, (_, i) => `p${i}`),
    )
    // Each accepted page is removed: no copy of the customer's records stays behind.
    expect(await s.webhooks.deliveries.byWebhook(webhook.id)).toEqual([])
  })

  it('keeps a page the receiver refused, with its data, for its retry', async () => {
    const { services: s, webhook } = await webhookWithPages(2)
    const refusing = {
      async send(): Promise<SendOutcome> {
        return { ok: false, status: 500, error: 'receiver answered 500' }
      },
    } as unknown as WebhookSender
    await delivererOf(s, refusing).deliver(webhook.id)
    const stored = await s.webhooks.deliveries.byWebhook(webhook.id)
    expect(stored.map((d) => [JSON.parse(d.data)[0].id, d.status, d.attempts])).toEqual([
      ['p0', 'pending', 1],
      ['p1', 'pending', 0],
    ])
  })

  it('removes a page once its last attempt fails, warns of it without its records, and sends the next', async () => {
    const { services: s, webhook } = await webhookWithPages(2)
    const sent: string[] = []
    const refusingFirst = pageSender(sent, (id) =>
      id === 'p0' ? { ok: false, status: 503, error: 'receiver answered 503' } : { ok: true, status: 200 },
    )
    const warned: { fields: Readonly<Record<string, unknown>>; message: string }[] = []
    // Each run a day after the last: every retry is due.
    let now = Date.now()
    const deliverer = delivererOf(
      s,
      refusingFirst,
      (fields, message) => warned.push({ fields, message }),
      () => now,
    )
    const [first] = await s.webhooks.deliveries.pending(webhook.id, 1)
    for (const attempt of [1, 2]) {
      await deliverer.deliver(webhook.id)
      const stored = await s.webhooks.deliveries.byWebhook(webhook.id)
      expect(stored.map((d) => [JSON.parse(d.data)[0].id, d.attempts])).toEqual([
        ['p0', attempt],
        ['p1', 0],
      ])
      now += 86_400_000
    }
    expect(warned).toEqual([])
    // The third attempt is the last (maxAttempts 3): the page goes, and the one behind it is sent.
    await deliverer.deliver(webhook.id)
    expect(sent).toEqual(['p0', 'p0', 'p0', 'p1'])
    expect(await s.webhooks.deliveries.byWebhook(webhook.id)).toEqual([])
    expect(warned).toHaveLength(1)
    expect(warned[0]!.fields).toEqual({
      webhook_id: webhook.id,
      workspace_id: webhook.workspace_id,
      connection_id: webhook.connection_id,
      delivery_id: first!.id,
      type: first!.type,
      record_count: 1,
      attempts: 3,
      last_status: 503,
    })
    expect(warned[0]!.message).toContain('given up after 3 attempts')
    expect(JSON.stringify(warned)).not.toContain('Property 0')
  })

  it('removes the accepted and given-up pages an older version kept, and only those', async () => {
    const { services: s, webhook } = await webhookWithPages(3)
    const [first, second] = await s.webhooks.deliveries.pending(webhook.id, 2)
    await s.db
      .updateTable('webhook_deliveries')
      .set({ status: 'delivered' })
      .where('id', '=', first!.id)
      .execute()
    await s.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed' })
      .where('id', '=', second!.id)
      .execute()
    await removeDeliveredDeliveriesMigration.up(s.db as unknown as Kysely<unknown>)
    const stored = await s.webhooks.deliveries.byWebhook(webhook.id)
    expect(stored.map((d) => [JSON.parse(d.data)[0].id, d.status])).toEqual([
      ['p1', 'failed'],
      ['p2', 'pending'],
    ])
    await removeGivenUpDeliveriesMigration.up(s.db as unknown as Kysely<unknown>)
    const left = await s.webhooks.deliveries.byWebhook(webhook.id)
    expect(left.map((d) => [JSON.parse(d.data)[0].id, d.status])).toEqual([['p2', 'pending']])
  })

  it('wakes a webhook for delivery only when its oldest pending page is due and its lease is free', async () => {
    const { services: s, webhook } = await webhookWithPages(3)
    const { deliveries } = s.webhooks
    const now = new Date().toISOString()
    const later = new Date(Date.now() + 60_000).toISOString()
    expect((await deliveries.dueWebhooks(now, 10)).map((w) => w.id)).toEqual([webhook.id])
    // The head failed and waits for its retry: the pages behind it wait too, so nothing is due.
    const [head] = await deliveries.pending(webhook.id, 1)
    await deliveries.markFailed(head!.id, { error: 'receiver answered 500', nextAttemptAt: later })
    expect(await deliveries.dueWebhooks(now, 10)).toEqual([])
    expect((await deliveries.dueWebhooks(later, 10)).map((w) => w.id)).toEqual([webhook.id])
    // Given up on, it is gone and no longer holds the next page back.
    expect(await deliveries.giveUp(head!.id)).toBe(true)
    expect(await deliveries.giveUp(head!.id)).toBe(false)
    expect((await deliveries.dueWebhooks(now, 10)).map((w) => w.id)).toEqual([webhook.id])
    // A held lease or a pause keeps it asleep.
    expect(await claimLease(s.db, 'delivery', webhook.id, 'token', now, later)).toBe(true)
    expect(await deliveries.dueWebhooks(now, 10)).toEqual([])
    await releaseLease(s.db, 'delivery', webhook.id, 'token')
    await s.webhooks.store.update(webhook.workspace_id, webhook.id, { is_paused: true }, now)
    expect(await deliveries.dueWebhooks(now, 10)).toEqual([])
  })

  it("finds every due webhook among many, by each one's oldest pending page, however their deliveries lie", async () => {
    // The look walks the webhooks that hold deliveries one index seek at a time: ids before, between and
    // after the due ones hold nothing (or only pages given up, so removed), a page not due yet, or a pause.
    const { services: s, webhook: first } = await storedWebhook(propertyWebhookSpec('looks'))
    const [other] = await storeWebhooks(s, propertyWebhookSpec('looks-other'), [{ id: 'wh_m_other' }])
    const more = await storeWebhooks(s, propertyWebhookSpec('looks-more'), [
      { id: 'wh_a_empty' },
      { id: 'wh_c_given_up' },
      { id: 'wh_e_due' },
      { id: 'wh_g_not_yet' },
      { id: 'wh_k_paused', is_paused: true },
      { id: 'wh_x_due' },
      { id: 'wh_z_empty' },
    ])
    const byId = new Map([first!, other!, ...more].map((w) => [w.id, w]))
    const now = new Date().toISOString()
    const later = new Date(Date.now() + 60_000).toISOString()
    // Stored a second apart, in this order: within a turn, the longest due comes first.
    const stored = [
      first!.id,
      'wh_m_other',
      'wh_c_given_up',
      'wh_e_due',
      'wh_g_not_yet',
      'wh_k_paused',
      'wh_x_due',
    ]
    for (const [i, id] of stored.entries()) {
      const records = [0, 1].map((p) => ({ id: `p${p}`, name: `Property ${p}` }))
      const at = new Date(Date.now() - 60_000 + i * 1000).toISOString()
      await commitNativeDeliveries(s.db, id, deliveryPages(records, 1, 'VIRTUAL'), at)
    }
    const { deliveries } = s.webhooks
    for (const page of await deliveries.pending('wh_c_given_up', 2)) await deliveries.giveUp(page.id)
    const [notYet] = await deliveries.pending('wh_g_not_yet', 1)
    await deliveries.markFailed(notYet!.id, { error: 'receiver answered 500', nextAttemptAt: later })

    const due = await deliveries.dueWebhooks(now, 10)
    // Every workspace's first before any workspace's second; within a turn, the longest due first.
    expect(due.map((w) => [w.id, w.turn])).toEqual([
      [first!.id, 0],
      ['wh_m_other', 0],
      ['wh_e_due', 0],
      ['wh_x_due', 1],
    ])
    expect(due.map((w) => w.workspace_id)).toEqual(due.map((w) => byId.get(w.id)!.workspace_id))
    expect((await deliveries.dueWebhooks(now, 2)).map((w) => w.id)).toEqual([first!.id, 'wh_m_other'])
    expect((await deliveries.dueWebhooks(later, 10)).map((w) => w.id)).toContain('wh_g_not_yet')
  })

  it('visits at most its share of the webhooks holding deliveries a look, going on from the last one', async () => {
    const { services: s } = await storedWebhook(propertyWebhookSpec('walk'))
    const ids = ['wh_w1', 'wh_w2', 'wh_w3', 'wh_w4', 'wh_w5', 'wh_w6', 'wh_w7']
    await holdersOfOnePage(s, 'walk-more', ids)
    const now = new Date().toISOString()
    // wh_w2's head waits for its retry: visited, and counted against the look's share, but not due.
    const [waiting] = await s.webhooks.deliveries.pending('wh_w2', 1)
    await s.webhooks.deliveries.markFailed(waiting!.id, {
      error: 'receiver answered 500',
      nextAttemptAt: new Date(Date.now() + 60_000).toISOString(),
    })
    const store = new DeliveryStore(s.db, 3)
    const look = async () => (await store.dueWebhooks(now, 10)).map((w) => w.id).sort()
    expect(await look()).toEqual(['wh_w1', 'wh_w3'])
    expect(await look()).toEqual(['wh_w4', 'wh_w5', 'wh_w6'])
    // The walk reaches the last holder: the next look starts from the first again.
    expect(await look()).toEqual(['wh_w7'])
    expect(await look()).toEqual(['wh_w1', 'wh_w3'])
    // With as many holders as a look's share or fewer, every look visits them all.
    const wide = new DeliveryStore(s.db, 7)
    expect((await wide.dueWebhooks(now, 10)).map((w) => w.id).sort()).toEqual(
      ids.filter((id) => id !== 'wh_w2'),
    )
    expect((await wide.dueWebhooks(now, 10)).map((w) => w.id).sort()).toEqual(
      ids.filter((id) => id !== 'wh_w2'),
    )
  })

  it('visits the whole share it counted although a holder is stored between its count and its probes', async () => {
    const { services: s } = await storedWebhook(propertyWebhookSpec('race'))
    const ids = ['wh_x1', 'wh_x3', 'wh_x5', 'wh_x6', 'wh_x7', 'wh_x8']
    await holdersOfOnePage(s, 'race-more', ids)
    // A busy webhook whose id sorts inside the first share: a page is stored for it between each look's two
    // queries, and delivered after the look (a review session's case: wh_x5 was then never found).
    await storeWebhooks(s, propertyWebhookSpec('race-busy'), [{ id: 'wh_x2' }])
    const now = new Date().toISOString()
    const store = new DeliveryStore(s.db, 3)
    const walk = store as unknown as { nextWalk: () => Promise<unknown> }
    const counted = walk.nextWalk.bind(store)
    walk.nextWalk = async () => {
      const extent = await counted()
      await commitNativeDeliveries(s.db, 'wh_x2', deliveryPages([{ id: 'q', name: 'Q' }], 1, 'VIRTUAL'), now)
      return extent
    }
    const found = new Set<string>()
    for (let i = 0; i < 6; i++) {
      for (const w of await store.dueWebhooks(now, 10)) found.add(w.id)
      await s.db.deleteFrom('webhook_deliveries').where('webhook_id', '=', 'wh_x2').execute()
    }
    expect([...found].sort()).toEqual([...ids, 'wh_x2'].sort())
  })

  it('stops when a page given up on is gone with its deleted webhook, sending nothing more of it', async () => {
    const { services: s, webhook } = await webhookWithPages(3)
    const sent: string[] = []
    const deletingOnFirst = pageSender(sent, async (id) => {
      if (id === 'p0') await s.db.deleteFrom('webhooks').where('id', '=', webhook.id).execute()
      return { ok: false, status: 503, error: 'receiver answered 503' }
    })
    const warned: unknown[] = []
    const d = new Deliverer(
      s.db,
      s.webhooks.store,
      s.webhooks.deliveries,
      s.connectionStore,
      s.workspaces,
      deletingOnFirst,
      new WebhookHealth(s.db, s.webhooks.notifications, 3),
      { minuteMs: 60_000, maxAttempts: 1, leaseMs: 60_000 },
      (fields) => warned.push(fields),
    )
    await d.deliver(webhook.id)
    expect(sent).toEqual(['p0'])
    expect(warned).toEqual([])
  })

  it('stops once the webhook is deleted while a page is on its way', async () => {
    const { services: s, webhook } = await webhookWithPages(6)
    const { sender, sent } = recordingSender(async (count) => {
      if (count === 2) await s.db.deleteFrom('webhooks').where('id', '=', webhook.id).execute()
    })
    await delivererOf(s, sender).deliver(webhook.id)
    // The page after the one on its way may go too (it is sent while that one's mark is written); no more.
    expect(sent.length).toBeGreaterThanOrEqual(2)
    expect(sent.length).toBeLessThanOrEqual(3)
  })

  it("sends a webhook's next page while the last one's mark is written, and ends only once every mark is", async () => {
    const { services: s, webhook } = await webhookWithPages(5)
    const { deliveries } = s.webhooks
    // Marks that take their time: each waits until the test lets it through.
    const markDelivered = deliveries.markDelivered.bind(deliveries)
    const held: (() => void)[] = []
    deliveries.markDelivered = (...args) =>
      new Promise<void>((resolve) => held.push(resolve)).then(() => markDelivered(...args))
    const { sender, sent } = recordingSender()
    let done = false
    const run = delivererOf(s, sender)
      .deliver(webhook.id)
      .finally(() => {
        done = true
      })
    try {
      // Page 2 goes out while page 1's mark is still held; page 3 waits for that mark.
      for (let i = 0; sent.length < 2 && i < 400; i++) await new Promise((r) => setTimeout(r, 5))
      await new Promise((r) => setTimeout(r, 20))
      expect(sent).toHaveLength(2)
      expect(held).toHaveLength(1)
      while (!done) {
        held.shift()?.()
        await new Promise((r) => setTimeout(r, 5))
      }
    } finally {
      deliveries.markDelivered = markDelivered
      for (const release of held) release()
    }
    await run
    expect(sent.map((d) => JSON.parse(d.body).data[0].id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4'])
    expect(await deliveries.byWebhook(webhook.id)).toEqual([])
  })

  it("warns of a given-up delivery in the server's log, by ids and counts only", async () => {
    const schema = store === 'postgres' ? uniqueSchema() : undefined
    const base = testConfig(store)
    const config = testConfig(store, {
      logLevel: 'warn',
      // One attempt, run by the in-process runner on either store; the stored hook_url (port 9) refuses it.
      webhooks: { ...base.webhooks, maxAttempts: 1, jobRunner: 'in-process' },
    })
    const lines: string[] = []
    const logStream = new PassThrough()
    logStream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)))
    const s = await createServices(config, {
      background: false,
      logStream,
      ...(schema ? { pgSchema: schema } : {}),
    })
    try {
      const [webhook] = await storeWebhooks(s, propertyWebhookSpec('given-up-log'), [
        { id: 'wh_given_up_log' },
      ])
      const records = [{ id: 'p0', name: 'Secret Property' }]
      await commitNativeDeliveries(
        s.db,
        webhook!.id,
        deliveryPages(records, 1, 'VIRTUAL'),
        new Date().toISOString(),
      )
      const [delivery] = await s.webhooks.deliveries.pending(webhook!.id, 1)
      await s.webhooks.jobs.start()
      await s.webhooks.jobs.enqueue(DELIVER_JOB, webhook!.id, { group: webhook!.workspace_id })
      const deadline = Date.now() + 10_000
      while (!lines.some((l) => l.includes('given up')) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20))
      const warned = lines.map((l) => JSON.parse(l)).filter((l) => String(l.msg).includes('given up'))
      expect(warned).toHaveLength(1)
      expect(warned[0]).toMatchObject({
        level: 40,
        webhook_id: webhook!.id,
        delivery_id: delivery!.id,
        record_count: 1,
        attempts: 1,
      })
      expect(lines.join('\n')).not.toContain('Secret Property')
      expect(await s.webhooks.deliveries.byWebhook(webhook!.id)).toEqual([])
    } finally {
      await s.close()
      if (schema) await dropSchema(schema)
    }
  })
})
