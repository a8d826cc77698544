import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_LEVER_API_KEY, type LeverEmulator, startLeverEmulator } from '../emulators/lever/index.js'
import { buildApp } from '../src/http/app.js'
import { createServices, type Services } from '../src/services.js'
import { testConfig } from './support/config.js'
import { freePort } from './support/server-process.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>

/**
 * Native webhooks against the Lever emulator: Unigate makes Lever webhooks (one per Lever event), the emulator
 * calls Unigate, signed, when an opportunity is created, changes stage, is archived or deleted; Unigate checks
 * the signature, reads the opportunity back and delivers the application typed NATIVE, signed.
 */
describe('native webhooks with Lever', () => {
  let emulator: LeverEmulator
  let services: Services
  let receiver: WebhookReceiver
  let base: string
  let apiKey: string
  let connection: string
  let close: () => Promise<void>

  const api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const text = await res.text()
    return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as T }
  }
  /** What a Lever user does in Lever: the emulator's own API, not Unigate's (the connector is read-only). */
  const lever = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${emulator.url}/v1${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${DEFAULT_LEVER_API_KEY}:`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    })
    expect(res.status, await res.clone().text()).toBeLessThan(300)
    return ((await res.json()) as { data: Rec }).data
  }
  const leverHooks = () => [...emulator.state.webhooks.hooks.values()]
  const hookRequests = () => emulator.requests().filter((r) => r.path === '/v1/webhooks')

  beforeAll(async () => {
    emulator = await startLeverEmulator({
      contacts: 10,
      ratePerSecond: 1000,
      burst: 1000,
      webhooks: {
        // A Super Admin toggled these groups on in Lever's settings; without that Lever sends nothing.
        groupsOn: [
          'applicationCreated',
          'candidateStageChange',
          'candidateArchiveChange',
          'candidateHired',
          'candidateDeleted',
        ],
        // The receiving Unigate here listens on plain HTTP (Lever itself only calls HTTPS endpoints).
        plainHttp: true,
        retryBaseMs: 50,
      },
    })
    // The provider must reach Unigate at its public address: know the port before starting.
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    services = await createServices(testConfig('sqlite', { publicUrl: base }))
    const app = await buildApp(services, { logger: false })
    await app.listen({ host: '127.0.0.1', port })
    close = async () => {
      await app.close()
      await services.close()
    }
    const { workspace, secret } = await services.workspaces.create('lever-native')
    apiKey = (await services.apiKeys.issue(workspace.id)).apiKey
    receiver = await startWebhookReceiver(secret)
    const conn = await api<{ id: string }>('POST', '/unified/connection', {
      integration_type: 'lever',
      auth: { api_key: DEFAULT_LEVER_API_KEY, api_url: `${emulator.url}/v1` },
    })
    expect(conn.status, conn.text).toBe(200)
    connection = conn.body.id
  })
  afterAll(async () => {
    await close?.()
    await receiver?.close()
    await emulator?.close()
  })

  const subscribe = async (event: string) => {
    const hook = await api<{ id: string; webhook_type: string }>('POST', '/unified/webhook', {
      connection_id: connection,
      object_type: 'ats_application',
      event,
      hook_url: receiver.url,
      fields: 'id,status,original_status,candidate_id,job_id',
    })
    expect(hook.status, hook.text).toBe(200)
    expect(hook.body.webhook_type).toBe('native')
    return hook.body.id
  }

  it('delivers a created application, then its stage change and hire, and unsubscribes on removal', async () => {
    const created = await subscribe('created')
    const updated = await subscribe('updated')
    // What reached Lever: one webhook per Lever event, to this webhook's receiving address, every origin.
    const bodies = hookRequests().map((r) => r.body as Rec)
    expect(bodies.map((b) => b.event)).toEqual([
      'applicationCreated',
      'candidateStageChange',
      'candidateArchiveChange',
      'candidateHired',
    ])
    expect(bodies[0]).toEqual({
      url: `${base}/native-webhooks/${created}`,
      event: 'applicationCreated',
      configuration: {
        conditions: { origins: ['applied', 'sourced', 'referred', 'university', 'agency', 'internal'] },
      },
    })
    expect(bodies.slice(1).every((b) => b.url === `${base}/native-webhooks/${updated}`)).toBe(true)
    // Lever's signing keys are kept sealed: neither the webhook's answer nor its stored row shows them.
    const tokens = leverHooks().map((h) => h.signatureToken)
    const shown = await api('GET', `/unified/webhook/${updated}`)
    const rows = await services.db.selectFrom('webhooks').selectAll().execute()
    for (const token of tokens) {
      expect(shown.text).not.toContain(token)
      expect(JSON.stringify(rows)).not.toContain(token)
    }

    const posting = emulator.state.postings[0] as string
    const user = emulator.state.users[0] as string
    const opportunity = await lever('POST', `/opportunities?perform_as=${user}`, {
      name: 'Mary Jackson',
      postings: [posting],
      origin: 'applied',
      stage: 'applicant-new',
    })
    await receiver.waitFor(() => receiver.accepted(created).length === 1, 15_000, 'the created application')
    expect(receiver.accepted(created)[0]).toMatchObject({
      type: 'NATIVE',
      data: [
        {
          id: opportunity.id,
          candidate_id: opportunity.contact,
          job_id: posting,
          original_status: 'New applicant',
        },
      ],
    })
    // Read back by id (the call carries ids only), shaped by the webhook's fields.
    expect(Object.keys(receiver.accepted(created)[0]?.data[0] ?? {}).sort()).toEqual([
      'candidate_id',
      'id',
      'job_id',
      'original_status',
      'status',
    ])
    expect(emulator.requests().some((r) => r.path === `/v1/opportunities/${opportunity.id}`)).toBe(true)
    expect(receiver.accepted(updated)).toEqual([])

    await lever('PUT', `/opportunities/${opportunity.id}/stage`, { stage: 'offer' })
    await receiver.waitFor(() => receiver.accepted(updated).length === 1, 15_000, 'the stage change')
    expect(receiver.accepted(updated)[0]?.data).toEqual([
      {
        id: opportunity.id,
        status: 'OFFERED',
        original_status: 'Offer',
        candidate_id: opportunity.contact,
        job_id: posting,
      },
    ])

    const hired = emulator.state.archiveReasons.find((r) => r.type === 'hired')?.id
    await lever('PUT', `/opportunities/${opportunity.id}/archived`, { reason: hired })
    // Lever sends both the archive change and the hire; both deliver the record as it now is.
    await receiver.waitFor(() => receiver.accepted(updated).length === 3, 15_000, 'the hire')
    expect(
      receiver
        .accepted(updated)
        .slice(1)
        .map((d) => d.data[0]?.status),
    ).toEqual(['HIRED', 'HIRED'])
    expect(receiver.badSignatures).toEqual([])

    for (const id of [created, updated])
      expect((await api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    expect(leverHooks()).toEqual([])
  })

  it('delivers a deleted application as its id', async () => {
    const deleted = await subscribe('deleted')
    expect(leverHooks().map((h) => h.event)).toEqual(['candidateDeleted'])
    const gone = emulator.state.ordered()[0]?.id as string
    expect(emulator.deleteOpportunity(gone)).toBe(true)
    await receiver.waitFor(() => receiver.accepted(deleted).length === 1, 15_000, 'the deletion')
    expect(receiver.accepted(deleted)[0]).toMatchObject({ type: 'NATIVE', data: [{ id: gone }] })
    expect((await api('DELETE', `/unified/webhook/${deleted}`)).status).toBe(200)
    expect(leverHooks()).toEqual([])
  })

  it('refuses a call not signed with the webhook signature token, and one signed for another event', async () => {
    const updated = await subscribe('updated')
    const [stageHook] = leverHooks().filter((h) => h.event === 'candidateStageChange')
    const opportunityId = emulator.state.ordered()[1]?.id as string
    const call = (event: string, signatureToken: string) => {
      const token = 'a'.repeat(48)
      const triggeredAt = Date.now()
      const signature = createHmac('sha256', signatureToken).update(`${token}${triggeredAt}`).digest('hex')
      return fetch(`${base}/native-webhooks/${updated}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'x', event, triggeredAt, token, signature, data: { opportunityId } }),
      })
    }
    expect((await call('candidateStageChange', 'guessed')).status).toBe(401)
    // Signed with a real key, but for an event this webhook's Lever webhook for it did not sign.
    expect((await call('applicationCreated', stageHook?.signatureToken as string)).status).toBe(401)
    expect(receiver.accepted(updated)).toEqual([])
    // Signed, but Lever cannot answer the read back now: 503, so Lever sends the call again; nothing delivered.
    emulator.fault({ status: 503, times: 10, pathPattern: `^/v1/opportunities/${opportunityId}$` })
    const unavailable = await call('candidateStageChange', stageHook?.signatureToken as string)
    expect(unavailable.status).toBe(503)
    expect(((await unavailable.json()) as { message: string }).message).toMatch(/call again later/)
    emulator.clearFaults()
    expect(receiver.accepted(updated)).toEqual([])
    // The real key for its own event is accepted (the record is read back and delivered).
    expect((await call('candidateStageChange', stageHook?.signatureToken as string)).status).toBe(200)
    await receiver.waitFor(() => receiver.accepted(updated).length === 1, 15_000, 'the signed call')
    expect(receiver.accepted(updated)[0]?.data[0]?.id).toBe(opportunityId)
    expect((await api('DELETE', `/unified/webhook/${updated}`)).status).toBe(200)
  })
})
