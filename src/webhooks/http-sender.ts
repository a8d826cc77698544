import {
  type AllowedAddress,
  GuardedAgentOnFirstUse,
  literalHostRefusal,
  outboundTarget,
} from '../outbound/index.js'
import { parseRetryAfterMs } from './retry-schedule.js'
import { SharedDeadlines } from './shared-deadlines.js'

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
  readonly allowAddresses: readonly AllowedAddress[]
  readonly timeoutMs: number
}

/**
 * A hook_url as the sender uses it: split into the origin and path undici's dispatcher takes (once, so that
 * no delivery parses it again), or why it cannot be sent to.
 */
type Target = { readonly origin: string; readonly path: string } | { readonly refusal: string }

/** Distinct hook URLs remembered; past this the memory starts over (it only saves parsing). */
const TARGETS_KEPT = 10_000

/**
 * POSTs deliveries. Connections go only to addresses the policy allows, checked after DNS resolution on
 * every new socket; redirects are not followed (a 3xx is a failure), so a receiver cannot bounce a
 * delivery into the internal network either.
 *
 * An attempt is cut `timeoutMs` (up to a tenth more, see SharedDeadlines) after it began, whatever it
 * waits for; undici's connect, headers and body timeouts (the same length) end a stalled socket sooner.
 * Each hook URL is parsed and checked against the literal-address rule once, not per delivery.
 */
export class WebhookSender {
  private readonly agent: GuardedAgentOnFirstUse
  private readonly deadlines: SharedDeadlines
  private readonly targets = new Map<string, Target>()

  constructor(private readonly settings: SenderSettings) {
    this.agent = new GuardedAgentOnFirstUse({
      allowAddresses: settings.allowAddresses,
      connectTimeoutMs: settings.timeoutMs,
      connections: 64,
    })
    this.deadlines = new SharedDeadlines(settings.timeoutMs)
  }

  private targetOf(url: string): Target {
    const known = this.targets.get(url)
    if (known) return known
    let target: Target
    try {
      const parsed = new URL(url)
      // The agent refuses it too; saying so here gives the delivery log a clear reason.
      const literalRefusal = literalHostRefusal(parsed, this.settings.allowAddresses)
      if (literalRefusal) target = { refusal: `refused: ${literalRefusal}` }
      else if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
        // The words undici's top-level request used for it, which the delivery log showed.
        target = {
          refusal:
            'could not reach the receiver: Invalid URL protocol: the URL must start with `http:` or `https:`.',
        }
      } else target = outboundTarget(parsed)
    } catch {
      target = { refusal: `hook_url '${url}' is not a URL` }
    }
    if (this.targets.size >= TARGETS_KEPT) this.targets.clear()
    this.targets.set(url, target)
    return target
  }

  async send(
    url: string,
    body: string,
    headers: Readonly<Record<string, string>>,
    abort?: AbortSignal,
  ): Promise<SendOutcome> {
    const target = this.targetOf(url)
    if ('refusal' in target) return { ok: false, error: target.refusal }
    try {
      const { agent } = await this.agent.kit()
      const res = await agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Unigate-Webhooks/1', ...headers },
        body,
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
        signal: this.deadlines.signal(abort),
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
    this.deadlines.close()
    await this.agent.close()
  }
}
