import { ProviderError } from '../../errors.js'
import type { ProviderClient } from '../http-client.js'
import { providerWaitMs, retryDelayMs } from '../retry.js'

/**
 * GET for a binary answer (Amplitude's export zip). ProviderClient decodes bodies as text, which would
 * corrupt the archive, so this reads bytes with the same transport, headers, timeout and retry policy.
 * Answers undefined for a 404, which the export uses for "no data in this range".
 */
export async function getBinary(
  client: ProviderClient,
  url: URL,
  headers: Readonly<Record<string, string>>,
): Promise<Buffer | undefined> {
  const { options } = client
  for (let attempt = 0; ; attempt++) {
    client.countCall()
    const res = await options.transport.fetch(url, {
      headers: { ...options.authHeaders, ...headers },
      timeoutMs: options.timeoutMs,
      ...client.owner,
      ...(client.slotWait ? { wait: client.slotWait } : {}),
    })
    // Counted as a call, not in the operation's answer bytes: archives are read one at a time, each within
    // the body cap and the unpacked cap, their unpacked size charged to the request's own budget
    // (ExportReadBudget), and only the page's events are kept of them (a dense day is read hour by hour,
    // far more bytes than any JSON listing, none of them held).
    const { status, headers: resHeaders, body } = res
    if (status >= 200 && status < 300) return body
    if (status === 404) return undefined
    const wait = retryDelayMs(options.retry, status, resHeaders, attempt)
    if (wait !== undefined && attempt < options.maxRetries && wait <= options.maxRetryWaitMs) {
      await new Promise((r) => setTimeout(r, wait))
      continue
    }
    const text = body.toString('utf8')
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {
      // Not JSON: the text is the message.
    }
    const waitMs = providerWaitMs(options.retry, resHeaders)
    throw new ProviderError(
      status,
      client.messageOf(parsed),
      waitMs === undefined ? undefined : Math.max(1, Math.ceil(waitMs / 1000)),
    )
  }
}
