import { GuardedAgentOnFirstUse, type GuardedRange, literalHostRefusal } from '../outbound/index.js'
import { parseRetryAfterMs } from './retry-schedule.js'

export interface SendOutcome {
  readonly ok: boolean
  readonly status?: number
  readonly error?: string
  /** The receiver's `retry-after`, when it sent one. */
  readonly retryAfterMs?: number
  /** The caller aborted (the process is stopping): no attempt to record, the delivery is sent again later. */
  readonly aborted?: true
}

export interface SenderSettings {
  readonly allowAddresses: readonly GuardedRange[]
  readonly timeoutMs: number
}

/**
 * POSTs deliveries. Connections go only to addresses the policy allows, checked after DNS resolution on
 * every new socket; redirects are not followed (a 3xx is a failure), so a receiver cannot bounce a
 * delivery into the internal network either.
 */
export class WebhookSender {
  private readonly agent: GuardedAgentOnFirstUse

  constructor(private readonly settings: SenderSettings) {
    this.agent = new GuardedAgentOnFirstUse({
      allowAddresses: settings.allowAddresses,
      connectTimeoutMs: settings.timeoutMs,
      connections: 64,
    })
  }

  async send(
    url: string,
    body: string,
    headers: Readonly<Record<string, string>>,
    abort?: AbortSignal,
  ): Promise<SendOutcome> {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return { ok: false, error: `hook_url '${url}' is not a URL` }
    }
    // The agent refuses it too; saying so here gives the delivery log a clear reason.
    const literalRefusal = literalHostRefusal(target, this.settings.allowAddresses)
    if (literalRefusal) return { ok: false, error: `refused: ${literalRefusal}` }
    try {
      const { request, agent } = await this.agent.kit()
      const res = await request(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Unigate-Webhooks/1', ...headers },
        body,
        dispatcher: agent,
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
        signal: abort
          ? AbortSignal.any([AbortSignal.timeout(this.settings.timeoutMs), abort])
          : AbortSignal.timeout(this.settings.timeoutMs),
      })
      // The receiver's answer is not used; read it only to free the socket for keep-alive.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined)
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode }
      const retryAfter = res.headers['retry-after']
      const retryAfterMs = parseRetryAfterMs(
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        Date.now(),
      )
      return {
        ok: false,
        status: res.statusCode,
        error: `receiver answered ${res.statusCode}`,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      }
    } catch (err) {
      if (abort?.aborted) return { ok: false, aborted: true }
      const e = err as { name?: string; code?: string; message?: string; cause?: { message?: string } }
      if (
        e.name === 'TimeoutError' ||
        e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
        e.code === 'UND_ERR_BODY_TIMEOUT'
      )
        return { ok: false, error: `receiver did not answer within ${this.settings.timeoutMs} ms` }
      return { ok: false, error: `could not reach the receiver: ${e.cause?.message ?? e.message ?? e.code}` }
    }
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}
