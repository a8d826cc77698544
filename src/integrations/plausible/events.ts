import { randomUUID } from 'node:crypto'
import { ApiError } from '../../errors.js'
import type { ObjectHandlers } from '../types.js'
import { fromPlausibleEventSent, toPlausibleEvent } from './mappers.js'

/** Plausible needs a User-Agent to count an event and drops those that look like bots. */
const EVENT_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) Unigate/0.1'

/**
 * Plausible keeps no event rows anyone can read back (privacy by design): events can be recorded, never
 * listed or read. `/api/event` answers 202 without an id and has no de-duplication key, so the id is ours.
 */
export const eventHandlers: ObjectHandlers = {
  listParams: [],
  filters: [],

  async create(ctx, body) {
    const sent = toPlausibleEvent(body)
    const res = await ctx.client.send({
      method: 'POST',
      path: '/api/event',
      body: sent,
      headers: { 'user-agent': EVENT_USER_AGENT },
    })
    if (String(res.headers['x-plausible-dropped'] ?? '') === '1') {
      throw new ApiError(
        502,
        `Plausible dropped the event (x-plausible-dropped: 1): check that site '${sent.domain}' exists and the URL is on it`,
      )
    }
    return fromPlausibleEventSent(randomUUID(), body, sent, new Date())
  },
}
