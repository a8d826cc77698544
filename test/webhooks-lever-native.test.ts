import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { DEFAULT_LEVER_API_KEY, type LeverEmulator, startLeverEmulator } from '../emulators/lever/index.js'
import { type NativeServer, useNativeSuite } from './support/native-server.js'
import { checkNow, notificationsOf } from './support/native-watch.js'

type Rec = Record<string, unknown>

/**
 * Native webhooks against the Lever emulator: Unigate makes Lever webhooks (one per Lever event), the emulator
 * calls Unigate, signed, when an opportunity is created, changes stage, is archived or deleted; Unigate checks
 * the signature, reads the opportunity back and delivers the application typed NATIVE, signed.
 */
describe('native webhooks with Lever', () => {
  let emulator: LeverEmulator
  let server: NativeServer
  let connection: string
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

  useNativeSuite({
    workspace: 'lever-native',
    start: () =>
      startLeverEmulator({
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
      }),
    connection: (started) => ({
      integration_type: 'lever',
      auth: { api_key: DEFAULT_LEVER_API_KEY, api_url: `${started.url}/v1` },
    }),
    ready: (suite) => {
      emulator = suite.emulator
      server = suite.server
      connection = suite.connection
    },
  })

  const subscribe = (event: string) =>
    server.nativeWebhook({
      connection_id: connection,
      object_type: 'ats_application',
      event,
      fields: 'id,status,original_status,candidate_id,job_id',
    })

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
      url: `${server.base}/native-webhooks/${created}`,
      event: 'applicationCreated',
      configuration: {
        conditions: { origins: ['applied', 'sourced', 'referred', 'university', 'agency', 'internal'] },
      },
    })
    expect(bodies.slice(1).every((b) => b.url === `${server.base}/native-webhooks/${updated}`)).toBe(true)
    // Lever's signing keys are kept sealed: neither the webhook's answer nor its stored row shows them.
    const tokens = leverHooks().map((h) => h.signatureToken)
    const shown = await server.api('GET', `/unified/webhook/${updated}`)
    const rows = await server.services.db.selectFrom('webhooks').selectAll().execute()
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
    await server.receiver.untilAccepted(created, 1, 'the created application')
    expect(server.receiver.accepted(created)[0]).toMatchObject({
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
    expect(Object.keys(server.receiver.accepted(created)[0]?.data[0] ?? {}).sort()).toEqual([
      'candidate_id',
      'id',
      'job_id',
      'original_status',
      'status',
    ])
    expect(emulator.requests().some((r) => r.path === `/v1/opportunities/${opportunity.id}`)).toBe(true)
    expect(server.receiver.accepted(updated)).toEqual([])

    await lever('PUT', `/opportunities/${opportunity.id}/stage`, { stage: 'offer' })
    await server.receiver.untilAccepted(updated, 1, 'the stage change')
    expect(server.receiver.accepted(updated)[0]?.data).toEqual([
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
    await server.receiver.untilAccepted(updated, 3, 'the hire')
    expect(
      server.receiver
        .accepted(updated)
        .slice(1)
        .map((d) => d.data[0]?.status),
    ).toEqual(['HIRED', 'HIRED'])
    expect(server.receiver.badSignatures).toEqual([])

    for (const id of [created, updated])
      expect((await server.api('DELETE', `/unified/webhook/${id}`)).status).toBe(200)
    expect(leverHooks()).toEqual([])
  })

  it('delivers a deleted application as its id', async () => {
    const deleted = await subscribe('deleted')
    expect(leverHooks().map((h) => h.event)).toEqual(['candidateDeleted'])
    const gone = emulator.state.ordered()[0]?.id as string
    expect(emulator.deleteOpportunity(gone)).toBe(true)
    await server.receiver.untilAccepted(deleted, 1, 'the deletion')
    expect(server.receiver.accepted(deleted)[0]).toMatchObject({ type: 'NATIVE', data: [{ id: gone }] })
    expect((await server.api('DELETE', `/unified/webhook/${deleted}`)).status).toBe(200)
    expect(leverHooks()).toEqual([])
  })

  /** A call as Lever makes it, signed with `signatureToken` (#securing-webhooks); its parts can be chosen. */
  const leverCall = (
    event: string,
    signatureToken: string,
    opportunityId: string,
    { token = randomBytes(24).toString('hex'), triggeredAt = Date.now() } = {},
  ) => {
    const signature = createHmac('sha256', signatureToken).update(`${token}${triggeredAt}`).digest('hex')
    return { id: randomUUID(), event, triggeredAt, token, signature, data: { opportunityId } }
  }
  const post = (webhookId: string, body: unknown) =>
    fetch(`${server.base}/native-webhooks/${webhookId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  /** The signing key of the Lever webhook made for one unified webhook's Lever event. */
  const keyOf = (webhookId: string, event: string) =>
    leverHooks().find((h) => h.event === event && h.url.endsWith(`/native-webhooks/${webhookId}`))
      ?.signatureToken as string
  const deliveredIds = (webhookId: string) => server.receiver.accepted(webhookId).map((d) => d.data[0]?.id)

  it('refuses a call not signed with the webhook signature token, and one signed for another event', async () => {
    const updated = await subscribe('updated')
    const stageKey = keyOf(updated, 'candidateStageChange')
    const opportunityId = emulator.state.ordered()[1]?.id as string
    expect((await post(updated, leverCall('candidateStageChange', 'guessed', opportunityId))).status).toBe(
      401,
    )
    // Signed with a real key, but for an event this webhook's Lever webhook for it did not sign.
    expect((await post(updated, leverCall('applicationCreated', stageKey, opportunityId))).status).toBe(401)
    // An event named after an object's inherited members finds no key (it used to reach createHmac: a 500).
    for (const event of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      expect((await post(updated, leverCall(event, 'guessed', opportunityId))).status, event).toBe(401)
    }
    expect(server.receiver.accepted(updated)).toEqual([])
    // Signed, but Lever cannot answer the read back now: 503, so Lever sends the call again; nothing delivered.
    emulator.fault({ status: 503, times: 10, pathPattern: `^/v1/opportunities/${opportunityId}$` })
    const signed = leverCall('candidateStageChange', stageKey, opportunityId)
    const unavailable = await post(updated, signed)
    expect(unavailable.status).toBe(503)
    expect(((await unavailable.json()) as { message: string }).message).toMatch(/call again later/)
    emulator.clearFaults()
    expect(server.receiver.accepted(updated)).toEqual([])
    // Lever's retry of that same call (same token and time) is accepted: a refused call left no token behind.
    expect((await post(updated, signed)).status).toBe(200)
    await server.receiver.untilAccepted(updated, 1, 'the signed call')
    expect(deliveredIds(updated)).toEqual([opportunityId])
    expect((await server.api('DELETE', `/unified/webhook/${updated}`)).status).toBe(200)
  })

  it('acknowledges a call whose read-back Lever refuses for good, delivering nothing, instead of 503 forever', async () => {
    const updated = await subscribe('updated')
    const stageKey = keyOf(updated, 'candidateStageChange')
    const [refused, readable] = emulator.state.ordered().map((o) => o.id) as [string, string]
    emulator.fault({ status: 403, times: 10, pathPattern: `^/v1/opportunities/${refused}$` })
    expect((await post(updated, leverCall('candidateStageChange', stageKey, refused))).status).toBe(200)
    emulator.clearFaults()
    expect((await post(updated, leverCall('candidateStageChange', stageKey, readable))).status).toBe(200)
    await server.receiver.waitFor(() => deliveredIds(updated).includes(readable), 15_000, 'the readable call')
    expect(deliveredIds(updated)).toEqual([readable])
    expect((await server.api('DELETE', `/unified/webhook/${updated}`)).status).toBe(200)
  })

  it('refuses a signed call triggered more than a day ago, and delivers a call sent twice once', async () => {
    const updated = await subscribe('updated')
    const stageKey = keyOf(updated, 'candidateStageChange')
    const [first, second] = emulator.state.ordered().map((o) => o.id) as [string, string]
    const stale = leverCall('candidateStageChange', stageKey, first, {
      triggeredAt: Date.now() - 25 * 60 * 60 * 1000,
    })
    expect((await post(updated, stale)).status).toBe(401)
    // The same token and signature with another body (Lever signs `token + triggeredAt` only): delivered once.
    const call = leverCall('candidateStageChange', stageKey, first)
    expect((await post(updated, call)).status).toBe(200)
    expect((await post(updated, call)).status).toBe(200)
    expect((await post(updated, { ...call, data: { opportunityId: second } })).status).toBe(200)
    // A later, distinct call: once it arrives, everything sent before it has been delivered or never will be.
    expect((await post(updated, leverCall('candidateStageChange', stageKey, second))).status).toBe(200)
    await server.receiver.waitFor(() => deliveredIds(updated).includes(second), 15_000, 'the distinct call')
    expect(deliveredIds(updated)).toEqual([first, second])
    expect((await server.api('DELETE', `/unified/webhook/${updated}`)).status).toBe(200)
  })

  it('delivers nothing for a signed delete call naming an opportunity Lever still has', async () => {
    const deleted = await subscribe('deleted')
    const deleteKey = keyOf(deleted, 'candidateDeleted')
    const [live, gone] = emulator.state.ordered().map((o) => o.id) as [string, string]
    // A captured candidateDeleted call, sent again with a live opportunity's id and its own fresh token.
    expect((await post(deleted, leverCall('candidateDeleted', deleteKey, live))).status).toBe(200)
    expect(emulator.requests().some((r) => r.path === `/v1/opportunities/${live}`)).toBe(true)
    expect(emulator.deleteOpportunity(gone)).toBe(true)
    await server.receiver.waitFor(() => deliveredIds(deleted).includes(gone), 15_000, 'the real deletion')
    expect(server.receiver.accepted(deleted).map((d) => d.data)).toEqual([[{ id: gone }]])
    expect((await server.api('DELETE', `/unified/webhook/${deleted}`)).status).toBe(200)
  })
  it('gives up a check whose webhook listing never ends, without subscribing again', async () => {
    const created = await subscribe('created')
    const made = leverHooks().filter((h) => h.url === `${server.base}/native-webhooks/${created}`)
    expect(made).toHaveLength(1)
    const posts = hookRequests().filter((r) => r.method === 'POST').length
    // An address that answers "there is a next page" for ever (api_url is the connection's to choose).
    emulator.fault({
      status: 200,
      body: { data: [], hasNext: true, next: 'again' },
      times: 1_000_000,
      method: 'GET',
      pathPattern: '^/v1/webhooks$',
    })
    try {
      const checked = await checkNow(server, created)
      expect(checked.is_healthy).toBe(true)
      expect(checked.checked_at).toBeUndefined()
    } finally {
      emulator.clearFaults()
    }
    expect(hookRequests().filter((r) => r.method === 'GET').length).toBeLessThanOrEqual(200)
    expect(hookRequests().filter((r) => r.method === 'POST')).toHaveLength(posts)
    expect(leverHooks().filter((h) => h.url === `${server.base}/native-webhooks/${created}`)).toEqual(made)
    expect((await server.api('DELETE', `/unified/webhook/${created}`)).status).toBe(200)
  })

  it('makes the Lever webhooks again when one of them is deleted at Lever, and tells the user', async () => {
    const updated = await subscribe('updated')
    const { receiver, api, base } = server
    const ours = () => leverHooks().filter((h) => h.url === `${base}/native-webhooks/${updated}`)
    const first = ours()
    expect(first.map((h) => h.event)).toEqual([
      'candidateStageChange',
      'candidateArchiveChange',
      'candidateHired',
    ])
    expect((await checkNow(server, updated)).is_healthy).toBe(true)
    expect(ours()).toEqual(first)

    // A Lever admin deletes one of the three (DELETE /webhooks/:id, #delete-a-webhook).
    const removedAt = new Date().toISOString()
    const res = await fetch(`${emulator.url}/v1/webhooks/${first[0]?.id}`, {
      method: 'DELETE',
      headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_LEVER_API_KEY}:`).toString('base64')}` },
    })
    expect(res.status).toBe(204)

    expect((await checkNow(server, updated)).is_healthy).toBe(true)
    // All three made again (with their new signature tokens), none of the old ones left.
    const again = ours()
    expect(again.map((h) => h.event)).toEqual([
      'candidateStageChange',
      'candidateArchiveChange',
      'candidateHired',
    ])
    const oldIds = new Set(first.map((h) => h.id))
    expect(again.some((h) => oldIds.has(h.id))).toBe(false)

    // Stage changes reach the receiver again, signed with the new tokens.
    const posting = emulator.state.postings[0] as string
    const user = emulator.state.users[0] as string
    const opportunity = await lever('POST', `/opportunities?perform_as=${user}`, {
      name: 'Dorothy Vaughan',
      postings: [posting],
      origin: 'applied',
      stage: 'applicant-new',
    })
    await lever('PUT', `/opportunities/${opportunity.id}/stage`, { stage: 'offer' })
    await receiver.waitFor(() => receiver.accepted(updated).length === 1, 15_000, 'the stage change')
    expect(receiver.accepted(updated)[0]?.data).toEqual([expect.objectContaining({ id: opportunity.id })])

    const notes = (await notificationsOf(server, updated)).filter((n) => n.event === 'WEBHOOK_UNHEALTHY')
    expect(notes).toHaveLength(1)
    const description = String(notes[0]?.description)
    expect(description).toContain(`webhook ${updated}`)
    expect(description).toContain('lever subscription was gone')
    const since = /since (\S+) /.exec(description)?.[1] ?? ''
    expect(Date.parse(since)).toBeLessThanOrEqual(Date.parse(removedAt))
    for (const h of [...first, ...again]) expect(description).not.toContain(h.signatureToken)
    expect((await api('DELETE', `/unified/webhook/${updated}`)).status).toBe(200)
    expect(ours()).toEqual([])
  })
})
