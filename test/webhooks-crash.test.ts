import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startUmamiEmulator, type UmamiEmulator } from '../emulators/umami/index.js'
import { killAllServerProcesses, type ServerProcess, startServerProcess } from './support/server-process.js'
import { backfillingWebhook, connectUmami, workspaceIn } from './support/umami-webhooks.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

const WEBSITES = 80

/**
 * A server process killed with SIGKILL while it delivers: after a restart on the same data, every change
 * arrives at least once, and a repeat is recognisable because every attempt of a delivery carries the same
 * nonce (and `x-unigate-delivery-id`) and the same data.
 */
describe('a server killed in the middle of deliveries', () => {
  let emulator: UmamiEmulator
  let receiver: WebhookReceiver
  let env: Record<string, string>
  let apiKey: string
  let server: ServerProcess

  beforeAll(async () => {
    emulator = await startUmamiEmulator({ websites: WEBSITES, sessions: 0 })
    const dataDir = mkdtempSync(join(tmpdir(), 'unigate-crash-'))
    const masterKey = randomBytes(32).toString('base64')
    env = {
      UNIGATE_DATA_DIR: dataDir,
      UNIGATE_MASTER_KEY: masterKey,
      UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
      UNIGATE_WEBHOOK_MINUTE_MS: '100',
      UNIGATE_WEBHOOK_TICK_MS: '50',
      UNIGATE_WEBHOOK_LEASE_MS: '1000',
      UNIGATE_WEBHOOK_DELIVERY_TIMEOUT_MS: '2000',
    }
    const made = await workspaceIn(env, 'crash')
    apiKey = made.apiKey
    // Slow answers keep deliveries in flight, so the kill lands in the middle of one.
    receiver = await startWebhookReceiver(made.secret, { delayMs: 15 })
    server = await startServerProcess(env)
  })

  afterAll(async () => {
    await killAllServerProcesses()
    await receiver?.close()
    await emulator?.close()
  })

  it('delivers every change at least once after a restart, each repeat recognisable by its nonce', async () => {
    await backfillingWebhook(server.url, apiKey, {
      connection_id: await connectUmami(server.url, apiKey, emulator.url),
      hook_url: receiver.url,
      page_max_limit: 1,
    })

    await receiver.waitFor(() => receiver.deliveries.length >= WEBSITES / 4, 30_000, 'some deliveries')
    await server.kill('SIGKILL')
    const beforeRestart = receiver.deliveries.length
    expect(beforeRestart).toBeLessThan(WEBSITES)

    server = await startServerProcess(env)
    await receiver.waitFor(
      () => receiver.accepted().some((d) => d.type === 'INITIAL-COMPLETE'),
      30_000,
      'the rest of the backfill after the restart',
    )

    const accepted = receiver.accepted()
    const ids = new Set(accepted.flatMap((d) => d.data.map((r) => String(r.id))))
    expect(ids.size).toBe(WEBSITES)
    // One nonce per delivery: a repeat carries the nonce and the data of the first attempt, and two
    // different nonces never carry the same record.
    const byNonce = new Map<string, string>()
    const nonceOfRecord = new Map<string, string>()
    for (const d of receiver.deliveries) {
      const data = JSON.stringify(d.data)
      expect(byNonce.get(d.nonce) ?? data).toBe(data)
      byNonce.set(d.nonce, data)
      for (const r of d.data) {
        expect(nonceOfRecord.get(String(r.id)) ?? d.nonce).toBe(d.nonce)
        nonceOfRecord.set(String(r.id), d.nonce)
      }
    }
    expect(byNonce.size).toBe(WEBSITES)
    expect(receiver.badSignatures).toEqual([])
    // The backfill's last page is the last one delivered.
    expect(accepted.at(-1)?.type).toBe('INITIAL-COMPLETE')
  })
})
