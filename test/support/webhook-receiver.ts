import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dataJsonOf, verifyDeliverySignature } from '../../src/webhooks/index.js'

export interface ReceivedDelivery {
  readonly deliveryId: string
  readonly attempt: number
  readonly type: string
  readonly nonce: string
  readonly data: Record<string, unknown>[]
  readonly webhookId: string
  readonly body: Record<string, unknown>
  /** What the receiver answered. */
  readonly answered: number
}

export interface ReceiverOptions {
  /** Decides the answer to each delivery; 200 by default. */
  readonly respond?: (
    d: Omit<ReceivedDelivery, 'answered'>,
  ) => number | { status: number; headers?: Record<string, string> }
  /** Delay before answering, in ms. */
  readonly delayMs?: number
  /**
   * Awaited before answering a delivery, for holding it in flight (`undefined` answers at once). A held
   * delivery is recorded only once answered; `arrivals` records it as it arrives.
   */
  readonly hold?: (d: Omit<ReceivedDelivery, 'answered'>) => Promise<void> | undefined
}

export interface WebhookReceiver {
  readonly url: string
  /** Deliveries whose sig256 verified, in arrival order (including those answered with an error). */
  readonly deliveries: ReceivedDelivery[]
  /** Every delivery as it arrived, answered or not (a sender may give up on a held one). */
  readonly arrivals: Omit<ReceivedDelivery, 'answered'>[]
  /** Bodies whose signature did not verify: must stay empty. */
  readonly badSignatures: string[]
  setResponder(respond: ReceiverOptions['respond']): void
  accepted(webhookId?: string): ReceivedDelivery[]
  /** Resolves once `predicate` holds, polling; rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>
  /** Resolves once exactly `count` deliveries to the webhook were accepted; rejects after 15 s. */
  untilAccepted(webhookId: string, count: number, what: string): Promise<void>
  close(): Promise<void>
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/**
 * A real HTTP receiver that verifies `sig256` on every delivery with the workspace secret, exactly as the
 * README tells users to: over the JSON text of `data` as received, followed by the nonce.
 */
export async function startWebhookReceiver(
  secret: string,
  options: ReceiverOptions = {},
): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = []
  const arrivals: Omit<ReceivedDelivery, 'answered'>[] = []
  const badSignatures: string[] = []
  let respond = options.respond
  const server: Server = createServer(async (req, res) => {
    const text = await readBody(req)
    const body = JSON.parse(text) as Record<string, unknown>
    const dataJson = dataJsonOf(text)
    const nonce = String(body.nonce)
    if (!dataJson || !verifyDeliverySignature(secret, dataJson, nonce, String(body.sig256))) {
      badSignatures.push(text)
      res.writeHead(400).end()
      return
    }
    const base = {
      deliveryId: String(req.headers['x-unigate-delivery-id']),
      attempt: Number(req.headers['x-unigate-delivery-attempt']),
      type: String(body.type),
      nonce,
      data: body.data as Record<string, unknown>[],
      webhookId: String((body.webhook as { id?: string }).id),
      body,
    }
    arrivals.push(base)
    await options.hold?.(base)
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs))
    const answer = respond ? respond(base) : 200
    const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer
    deliveries.push({ ...base, answered: status })
    res.writeHead(status, headers).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const accepted = (webhookId?: string) =>
    deliveries.filter((d) => d.answered < 300 && (!webhookId || d.webhookId === webhookId))
  const waitFor = async (predicate: () => boolean, timeoutMs = 15_000, what = 'condition') => {
    const deadline = Date.now() + timeoutMs
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 25))
    }
  }
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    arrivals,
    badSignatures,
    setResponder(r) {
      respond = r
    },
    accepted,
    waitFor,
    untilAccepted: (webhookId, count, what) =>
      waitFor(() => accepted(webhookId).length === count, 15_000, what),
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
