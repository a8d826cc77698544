import { ProviderError } from '../../errors.js'
import { bearerSecretMatches } from '../native-auth.js'
import type { HandlerContext, NativeWebhookSupport } from '../types.js'
import { fromPosthogEvent } from './mappers.js'
import type { PosthogEvent } from './types.js'
import { rowVisitorId } from './visitor-ids.js'

/**
 * Captured events pushed by a PostHog CDP destination: a hog function of type `destination` built from the
 * `template-webhook` template (`POST /api/projects/{project_id}/hog_functions/`). PostHog does not sign
 * destination calls, so the subscription sets `authorization: Bearer <secret>` in the destination's headers
 * and Unigate checks it. Removing uses `PATCH … {deleted: true}`: PostHog refuses DELETE on hog functions.
 */
function projectIdOf(ctx: HandlerContext): string {
  const id = ctx.settings.project_id
  if (!id) throw new Error('the connection has no PostHog project id; update the connection to re-verify it')
  return id
}

interface DestinationCall {
  readonly event?: PosthogEvent
  /** The CDP's `person` global: the event's person (`id` is its uuid), null for a person-less event. */
  readonly person?: { readonly id?: string } | null
  readonly project?: { readonly id?: number | string }
}

export const posthogEventPushes: NativeWebhookSupport = {
  events: ['created'],

  async subscribe(ctx, request) {
    const created = await ctx.client.json<{ id: string }>({
      method: 'POST',
      path: `/api/projects/${projectIdOf(ctx)}/hog_functions/`,
      body: {
        type: 'destination',
        name: request.name,
        template_id: 'template-webhook',
        enabled: true,
        inputs: {
          url: { value: request.url },
          method: { value: 'POST' },
          headers: {
            value: { 'Content-Type': 'application/json', Authorization: `Bearer ${request.secret}` },
          },
          body: { value: { event: '{event}', person: '{person}', project: '{project}' } },
        },
        filters: {},
      },
    })
    return { externalId: created.id }
  },

  async unsubscribe(ctx, externalId) {
    try {
      await ctx.client.json({
        method: 'PATCH',
        path: `/api/projects/${projectIdOf(ctx)}/hog_functions/${encodeURIComponent(externalId)}/`,
        body: { deleted: true },
        idempotent: true,
      })
    } catch (err) {
      if (!(err instanceof ProviderError && err.status === 404)) throw err
    }
  },

  authenticate: (call, secret) => bearerSecretMatches(call, secret),

  // A destination pushes captured events only: every call is a `created`.
  records(call) {
    const body = (call.body ?? {}) as DestinationCall
    if (!body.event?.event) return []
    // The destination is created on the connection's default project, whose visitor ids are bare person
    // uuids (visitor-ids.ts): the same `visitor_id` the event has when listed.
    const visitorId = rowVisitorId(body.person?.id, body.event.distinct_id)
    return [fromPosthogEvent(body.event, String(body.project?.id ?? ''), visitorId)]
  },
}
