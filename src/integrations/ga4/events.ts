import { randomUUID } from 'node:crypto'
import { badRequest } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import type { HandlerContext, ObjectHandlers, WriteBody } from '../types.js'
import { fromGa4Collect, toGa4Collect } from './event-mappers.js'
import { ga4MeasurementBase } from './hosts.js'

/**
 * Sends one event. GA4 answers 2xx with an empty body and no id, and validates nothing, so the event is
 * checked here first, the id is ours (sent along as `event_id`), and it is never retried: GA4 cannot
 * de-duplicate events, so a retry could count one twice.
 */
async function createEvent(ctx: HandlerContext, body: WriteBody): Promise<UnifiedRecord> {
  const measurementId = ctx.credentials.measurement_id
  const apiSecret = ctx.credentials.api_secret
  if (!measurementId || !apiSecret) {
    throw badRequest(
      'this GA4 connection has no Measurement Protocol credentials; update it with auth.measurement_id (G-...) ' +
        'and auth.api_secret (Admin > Data streams > Measurement Protocol API secrets)',
    )
  }
  const id = randomUUID()
  const collect = toGa4Collect(body, id)
  // The Measurement Protocol authenticates with `api_secret`, not OAuth: the bearer token stays home.
  await ctx.client.send({
    method: 'POST',
    path: '/mp/collect',
    baseUrl: ga4MeasurementBase(ctx.credentials),
    authenticate: false,
    query: { ...ctx.rawParams, measurement_id: measurementId, api_secret: apiSecret },
    body: collect.payload,
    idempotent: false,
  })
  return fromGa4Collect(body, collect, id, measurementId)
}

export const ga4Events: ObjectHandlers = {
  create: createEvent,
  listParams: [],
  filters: [],
}
