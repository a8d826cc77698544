import { createHmac, randomBytes } from 'node:crypto'
import { HookRetries, postHookCall } from '../kit/hook-calls.js'

/**
 * BambooHR's permissioned webhooks (created through the API) with the field-based events
 * (`employee_with_fields.created`, `.updated`, `.deleted`, the default set): each change is `POST`ed as
 * `{"employees": [{id, action, timestamp, fields, changedFields}]}`, `fields` keyed by the webhook's
 * `postFields` names on an update and empty on a create or delete, signed with the webhook's private key: `X-BambooHR-Signature` is the hex HMAC-SHA256
 * of the raw body followed by the `X-BambooHR-Timestamp` value (unix seconds)
 * (https://documentation.bamboohr.com/docs/webhooks, "Security"; its PHP sample hashes `$body .
 * $timestamp`; https://documentation.bamboohr.com/docs/field-based-webhooks).
 */
export type HookEvent =
  | 'employee_with_fields.created'
  | 'employee_with_fields.updated'
  | 'employee_with_fields.deleted'

export interface Hook {
  readonly id: string
  readonly name: string
  readonly url: string
  readonly format: 'json'
  readonly monitorFields: readonly string[]
  readonly postFields: Readonly<Record<string, string>>
  readonly events: readonly HookEvent[]
  readonly includeCompanyDomain: boolean
  readonly privateKey: string
  readonly created: number
  lastSent: number | null
}

/** One call the emulator made, for tests asserting what BambooHR sent. */
export interface HookCall {
  readonly hookId: string
  readonly url: string
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  /** 1 for the first call, 2 to 6 for its retries. */
  readonly attempt: number
  readonly status: number | 'error'
}

/**
 * A call answered with a 5xx is retried "up to 5 times using exponential backoff (5min, 10min, 20min, 40min,
 * 80min intervals)"; one answered with a 4xx is not retried
 * (https://documentation.bamboohr.com/reference/employee-updated-webhook, responses 400 and 500; the same on
 * every webhook event's page). BambooHR does not say whether a retry is signed anew: the emulator sends the
 * first call again as it was, timestamp and signature too (ours: the case a receiver's window must admit).
 */
export const RETRY_DELAYS_MS: readonly number[] = [5, 10, 20, 40, 80].map((m) => m * 60_000)

export type EmployeeAction = 'Created' | 'Updated' | 'Deleted'

const EVENT_OF: Readonly<Record<EmployeeAction, HookEvent>> = {
  Created: 'employee_with_fields.created',
  Updated: 'employee_with_fields.updated',
  Deleted: 'employee_with_fields.deleted',
}

/** The hex HMAC-SHA256 of the body followed by the timestamp, keyed with the webhook's private key. */
export function bamboohrSignature(privateKey: string, body: string, timestamp: string): string {
  return createHmac('sha256', privateKey)
    .update(body + timestamp)
    .digest('hex')
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as the Webhooks API prints `created` and `lastSent`. */
export const hookTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

export class BamboohrHooks {
  readonly hooks = new Map<string, Hook>()
  readonly calls: HookCall[] = []
  private nextId = 1
  private readonly retries = new HookRetries()

  constructor(
    private readonly companyDomain: string,
    private readonly retryDelaysMs: readonly number[] = RETRY_DELAYS_MS,
  ) {}

  /** Retries waiting for their time. */
  get pendingRetries(): number {
    return this.retries.pending
  }

  add(hook: Omit<Hook, 'id' | 'privateKey' | 'created' | 'lastSent'>): Hook {
    const created: Hook = {
      ...hook,
      id: String(this.nextId++),
      privateKey: randomBytes(32).toString('hex'),
      created: Date.now(),
      lastSent: null,
    }
    this.hooks.set(created.id, created)
    return created
  }

  /**
   * Sends a change to each webhook subscribed to its event; an update only where a monitored field changed
   * (`changedFields` lists those). `fields(hook)` renders the employee under the hook's post names.
   */
  notify(
    action: EmployeeAction,
    employeeId: number,
    fieldsOf: (postFields: Readonly<Record<string, string>>) => Record<string, string | null>,
    changed: readonly string[] = [],
  ): void {
    for (const hook of this.hooks.values()) {
      if (!hook.events.includes(EVENT_OF[action])) continue
      const changedFields = hook.monitorFields.filter((f) => changed.includes(f))
      if (action === 'Updated' && changedFields.length === 0) continue
      // "For Created and Deleted actions the payload will always contain empty changedFields and fields
      // objects in the request body since these actions are only notifying that the event took place"
      // (https://documentation.bamboohr.com/docs/global-webhooks, "Webhook Data Format"; field-based webhooks
      // are the global ones: https://documentation.bamboohr.com/docs/field-based-webhooks). Only an update
      // carries the posted fields.
      const updated = action === 'Updated'
      const body = JSON.stringify({
        employees: [
          {
            id: String(employeeId),
            action,
            // The entry's time with a colon-less offset, `2026-01-31T18:42:00+0000` (the JSON example of
            // https://documentation.bamboohr.com/docs/field-based-webhooks, "Webhook Data Format"; the same form
            // on https://documentation.bamboohr.com/docs/event-based-webhooks).
            timestamp: `${new Date().toISOString().slice(0, 19)}+0000`,
            fields: updated ? fieldsOf(hook.postFields) : {},
            changedFields: updated ? changedFields : [],
          },
        ],
      })
      const timestamp = String(Math.floor(Date.now() / 1000))
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-bamboohr-timestamp': timestamp,
        'x-bamboohr-signature': bamboohrSignature(hook.privateKey, body, timestamp),
        // "If set to true, the company domain will be added to the webhook request header" (NewWebHook).
        ...(hook.includeCompanyDomain ? { 'company-domain': this.companyDomain } : {}),
      }
      void this.send(hook, body, headers, 1)
    }
  }

  private async send(
    hook: Hook,
    body: string,
    headers: Readonly<Record<string, string>>,
    attempt: number,
  ): Promise<void> {
    if (this.retries.closed) return
    const status = await postHookCall(hook.url, headers, body)
    hook.lastSent = Date.now()
    this.calls.push({ hookId: hook.id, url: hook.url, body, headers, attempt, status })
    // Only a 5xx answer is documented as retried: no answer at all is not (ours: BambooHR says nothing of it).
    if (typeof status !== 'number' || status < 500) return
    const delay = this.retryDelaysMs[attempt - 1]
    if (delay === undefined || !this.hooks.has(hook.id)) return
    this.retries.after(delay, () => void this.send(hook, body, headers, attempt + 1))
  }

  close(): void {
    this.retries.close()
  }
}
