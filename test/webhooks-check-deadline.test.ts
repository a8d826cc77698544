import { describe, expect, it } from 'vitest'
import { type HubspotEmulator, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { testConfig } from './support/config.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectHubspot } from './support/hubspot.js'
import { useEmulatorSuite } from './support/integration-suite.js'
import { watchedWebhook } from './support/watched-webhook.js'
import { startWebhookReceiver } from './support/webhook-receiver.js'

/**
 * A virtual webhook's check reads its provider for at most UNIGATE_WEBHOOK_CHECK_DEADLINE_MS, every page
 * together: past it no call starts and the check is a failed one. Each call was bounded (and since this
 * round its whole answer), but a check could make up to 2,000 calls a page over a thousand pages, so an
 * address answering slowly held one of the process's job slots, which every workspace shares, for days.
 * A deadline of 0 has passed before the check's first call, so this needs no timing.
 */
describe('a webhook check past its deadline', () => {
  let h: Harness
  let emu: HubspotEmulator
  let conn: string

  useEmulatorSuite({
    start: () => startHubspotEmulator({ seed: 9, contacts: 30, searchPerSecond: 1000 }),
    harness: () => {
      const config = testConfig('sqlite')
      return startHarness('sqlite', { webhooks: { ...config.webhooks, checkDeadlineMs: 0 } })
    },
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await connectHubspot(h, emu)
    },
  })

  it('calls the provider no more and records a failed check naming the setting', async () => {
    const receiver = await startWebhookReceiver(h.secret)
    try {
      // Created once its first check (a baseline, which reads nothing) has run.
      const { id } = await watchedWebhook(h, conn, receiver.url, 'crm_contact')
      emu.clearRequests()
      expect((await h.api('PUT', `/unified/webhook/${id}/trigger`)).status).toBe(200)
      const failed = async () =>
        (
          await h.services.db
            .selectFrom('webhook_runs')
            .select('outcome')
            .where('webhook_id', '=', id)
            .where('outcome', 'like', 'error:%')
            .execute()
        ).map((r) => r.outcome)
      for (let i = 0; i < 400 && (await failed()).length === 0; i++)
        await new Promise((r) => setTimeout(r, 25))
      expect(await failed()).toEqual([
        'error: this request has been reading from the provider for 0 s, the most Unigate allows one (UNIGATE_WEBHOOK_CHECK_DEADLINE_MS); nothing more was asked',
      ])
      expect(emu.requests().filter((r) => r.path.startsWith('/crm/'))).toEqual([])
      await h.api('DELETE', `/unified/webhook/${id}`)
    } finally {
      await receiver.close()
    }
  })
})
