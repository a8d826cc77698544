import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Ga4State } from './state.js'

/** An event the Measurement Protocol accepted: kept so tests can see what reached GA4. */
export interface CollectedEvent {
  readonly measurementId: string
  readonly clientId: string
  readonly userId?: string
  readonly timestampMicros?: number
  readonly name: string
  readonly params: Readonly<Record<string, unknown>>
  readonly receivedAt: string
}

export interface ValidationMessage {
  readonly fieldPath: string
  readonly description: string
  readonly validationCode: string
}

/**
 * Reserved event names; `screen_view` is no longer among them. Source:
 * https://developers.google.com/analytics/devguides/collection/protocol/ga4/reference#reserved_names
 */
const RESERVED = new Set([
  'ad_activeview',
  'ad_click',
  'ad_exposure',
  'ad_query',
  'ad_reward',
  'adunit_exposure',
  'app_background',
  'app_clear_data',
  'app_exception',
  'app_remove',
  'app_store_refund',
  'app_update',
  'app_upgrade',
  'dynamic_link_app_open',
  'dynamic_link_app_update',
  'dynamic_link_first_open',
  'error',
  'firebase_campaign',
  'firebase_in_app_message_action',
  'firebase_in_app_message_dismiss',
  'firebase_in_app_message_impression',
  'first_open',
  'first_visit',
  'in_app_purchase',
  'notification_dismiss',
  'notification_foreground',
  'notification_open',
  'notification_receive',
  'notification_send',
  'os_update',
  'session_start',
  'user_engagement',
])
/** Names: a letter, then letters, digits or _, at most 40 characters (answer/9267744, reference#reserved_names). */
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/
const RESERVED_PREFIXES = ['_', 'firebase_', 'ga_', 'google_', 'gtag.']
/** Events may be backdated up to 72 hours (protocol/ga4/sending-events, "timestamp_micros"). */
const MAX_BACKDATE_MICROS = 72 * 3_600_000 * 1000
/**
 * Parameter values: 100 characters, except page_location 1000, page_referrer 420, page_title 300
 * (https://support.google.com/analytics/answer/9267744, "Event collection limits").
 */
const MAX_VALUE = 100
const MAX_VALUE_OF: Readonly<Record<string, number>> = {
  page_location: 1000,
  page_referrer: 420,
  page_title: 300,
}

const msg = (fieldPath: string, description: string, validationCode: string): ValidationMessage => ({
  fieldPath,
  description,
  validationCode,
})

function checkName(path: string, name: unknown, out: ValidationMessage[], reserved: boolean): void {
  if (typeof name !== 'string' || !NAME.test(name) || RESERVED_PREFIXES.some((p) => name.startsWith(p))) {
    out.push(msg(path, `${path} "${String(name)}" is not a valid name.`, 'NAME_INVALID'))
  } else if (reserved && RESERVED.has(name)) {
    out.push(msg(path, `${path} "${name}" is reserved.`, 'NAME_RESERVED'))
  }
}

/** Google's Measurement Protocol rules for a web stream's payload (the validation server's checks). */
export function validatePayload(body: unknown, nowMs: number): ValidationMessage[] {
  const out: ValidationMessage[] = []
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return [msg('', 'Unable to parse Measurement Protocol JSON payload.', 'VALUE_INVALID')]
  }
  const b = body as Record<string, unknown>
  if (typeof b.client_id !== 'string' || b.client_id === '') {
    out.push(msg('client_id', 'Measurement requires a client_id.', 'VALUE_REQUIRED'))
  }
  if (b.timestamp_micros !== undefined) {
    const t = Number(b.timestamp_micros)
    if (!Number.isFinite(t) || t > (nowMs + 60_000) * 1000 || nowMs * 1000 - t > MAX_BACKDATE_MICROS) {
      out.push(
        msg('timestamp_micros', 'timestamp_micros must be within the last 72 hours.', 'VALUE_OUT_OF_BOUNDS'),
      )
    }
  }
  const events = b.events
  // At most 25 events per request (protocol/ga4/sending-events, "Limitations").
  if (!Array.isArray(events) || events.length === 0 || events.length > 25) {
    out.push(msg('events', 'A request must have between 1 and 25 events.', 'VALUE_OUT_OF_BOUNDS'))
    return out
  }
  events.forEach((e: Record<string, unknown> | null, i) => {
    checkName(`events[${i}].name`, e?.name, out, true)
    const params = (e?.params ?? {}) as Record<string, unknown>
    // 25 parameters per event (answer/9267744).
    if (Object.keys(params).length > 25) {
      out.push(msg(`events[${i}].params`, 'An event can have at most 25 parameters.', 'VALUE_OUT_OF_BOUNDS'))
    }
    for (const [k, v] of Object.entries(params)) {
      if (k !== 'items') checkName(`events[${i}].params.${k}`, k, out, false)
      const max = MAX_VALUE_OF[k] ?? MAX_VALUE
      if (typeof v === 'string' && v.length > max) {
        out.push(
          msg(
            `events[${i}].params.${k}`,
            `Value of ${k} is at most ${max} characters.`,
            'VALUE_OUT_OF_BOUNDS',
          ),
        )
      }
    }
  })
  return out
}

/**
 * `POST /mp/collect` answers 204 to every request it receives, valid or not (Google: "always returns a
 * 2xx status code"); only valid events from a known stream with its api_secret are recorded.
 * `POST /debug/mp/collect` says what is wrong instead.
 */
export function registerMeasurementRoutes(app: FastifyInstance, state: Ga4State): void {
  // Browsers and server libraries send the JSON with any content type (text/plain, none): GA4 reads it anyway.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, JSON.parse(String(body)))
      } catch {
        done(null, String(body))
      }
    })
    registerCollect(scope, state)
  })
}

function registerCollect(app: FastifyInstance, state: Ga4State): void {
  app.post('/mp/collect', async (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as Record<string, string | undefined>
    const stream = state.seed.streams.find((s) => s.measurementId === q.measurement_id)
    const valid =
      stream && q.api_secret === stream.apiSecret && validatePayload(request.body, state.now()).length === 0
    if (valid) {
      const b = request.body as Record<string, unknown>
      for (const e of b.events as { name: string; params?: Record<string, unknown> }[]) {
        state.collected.push({
          measurementId: stream.measurementId,
          clientId: String(b.client_id),
          ...(typeof b.user_id === 'string' ? { userId: b.user_id } : {}),
          ...(b.timestamp_micros !== undefined ? { timestampMicros: Number(b.timestamp_micros) } : {}),
          name: e.name,
          params: e.params ?? {},
          receivedAt: new Date(state.now()).toISOString(),
        })
      }
    }
    return reply.code(204).send()
  })

  app.post('/debug/mp/collect', async (request: FastifyRequest) => {
    const q = request.query as Record<string, string | undefined>
    const messages = validatePayload(request.body, state.now())
    if (!q.measurement_id)
      messages.unshift(msg('measurement_id', 'measurement_id is required.', 'VALUE_REQUIRED'))
    return { validationMessages: messages }
  })
}
