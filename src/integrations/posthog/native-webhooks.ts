import { ProviderError } from '../../errors.js'
import { bearerSecretMatches } from '../native-auth.js'
import { sameTarget } from '../native-urls.js'
import type { NativeWebhookSupport } from '../types.js'
import { fromPosthogEvent } from './mappers.js'
import { projectIdOf } from './requests.js'
import type { PosthogEvent } from './types.js'
import { rowVisitorId } from './visitor-ids.js'

/*
 * Captured events pushed by a PostHog CDP destination: a hog function of type `destination` built from the
 * `template-webhook` template (`POST /api/projects/{project_id}/hog_functions/`). PostHog does not sign
 * destination calls, so the subscription sets `authorization: Bearer <secret>` in the destination's headers
 * and Unigate checks it. Removing uses `PATCH … {deleted: true}`: PostHog refuses DELETE on hog functions.
 */

/**
 * Hog functions as `GET /api/projects/{project_id}/hog_functions/` lists them: the minimal serializer (no
 * `inputs`), deleted ones left out, DRF's limit/offset pages of 100 (`HogFunctionViewSet.get_serializer_class`,
 * `HogFunctionMinimalSerializer`, `safely_get_queryset` in PostHog/posthog@bb3f43dbb62b:posthog/api/hog_function.py;
 * `LimitOffsetPagination`, `PAGE_SIZE` 100 in PostHog/posthog@000798bf8784:posthog/settings/web.py).
 */
interface HogFunctionPage {
  readonly results?: readonly { readonly id?: unknown }[]
  readonly next?: string | null
}

/** One hog function as retrieved (the full serializer): its webhook URL is the `url` input's value. */
interface HogFunctionDetail {
  readonly inputs?: { readonly url?: { readonly value?: unknown } } | null
}

const PAGE = 100
/** Pages of destinations a look-up reads at most: a bound on an answer that never ends. */
const MAX_PAGES = 50

interface DestinationCall {
  readonly event?: PosthogEvent
  /** The CDP's `person` global: the event's person (`id` is its uuid), null for a person-less event. */
  readonly person?: { readonly id?: string } | null
  readonly project?: { readonly id?: number | string }
}

/** How long an event's uuid is remembered after its call was acknowledged (`callToken`). */
export const POSTHOG_EVENT_TOKEN_MS = 24 * 60 * 60 * 1000

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

  /**
   * PostHog's list of hog functions does not show their inputs, so the destinations are searched by the name
   * the subscription was made with (`search` matches each of its words in the name or description: the
   * viewset's `SearchFilter` on `name`, `description`, hog_function.py above), and each one found is read
   * (`GET …/hog_functions/{id}/`, the full serializer) and kept only when its `url` input is the address.
   */
  async subscriptionsAt(ctx, target) {
    const base = `/api/projects/${projectIdOf(ctx)}/hog_functions/`
    const candidates: string[] = []
    for (let page = 0; ; page++) {
      if (page >= MAX_PAGES) throw new Error(`PostHog listed more than ${MAX_PAGES} pages of destinations`)
      const answer = await ctx.client.json<HogFunctionPage>({
        path: base,
        query: {
          type: 'destination',
          search: target.name,
          limit: String(PAGE),
          offset: String(page * PAGE),
        },
      })
      const results = Array.isArray(answer?.results) ? answer.results : []
      for (const fn of results) if (typeof fn?.id === 'string') candidates.push(fn.id)
      if (!answer?.next || results.length === 0) break
    }
    const found: string[] = []
    for (const id of candidates) {
      try {
        const fn = await ctx.client.json<HogFunctionDetail>({ path: `${base}${encodeURIComponent(id)}/` })
        if (sameTarget(fn?.inputs?.url?.value, target.url)) found.push(id)
      } catch (err) {
        // Removed since it was listed.
        if (!(err instanceof ProviderError && err.status === 404)) throw err
      }
    }
    return found
  },

  authenticate: (call, secret) => bearerSecretMatches(call, secret),

  // A destination pushes captured events only: every call is a `created`.
  records(call, push) {
    const body = (call.body ?? {}) as DestinationCall
    if (!body.event?.event) return []
    // The destination was made on the connection's project, so its events are that project's: the
    // `property_id` is the connection's, never the body's. The bearer secret is readable by the project's
    // members in the destination's inputs, so a call naming another project was not made by this
    // destination, and delivers nothing (a receiver mapping property_id to its tenants was told another's).
    const project = push.settings.project_id ?? ''
    if (body.project?.id !== undefined && String(body.project.id) !== project) return []
    // The destination is created on the connection's default project, whose visitor ids are bare person
    // uuids (visitor-ids.ts): the same `visitor_id` the event has when listed.
    const visitorId = rowVisitorId(body.person?.id, body.event.distinct_id)
    return [fromPosthogEvent(body.event, project, visitorId)]
  },

  // An event's uuid is its own (PostHog deduplicates captured events on it): a destination's retry of a call,
  // or a call sent again, delivers the event once. Remembered for a day, Unigate's choice.
  callToken(call) {
    const uuid = ((call.body ?? {}) as DestinationCall).event?.uuid
    return typeof uuid === 'string' && uuid !== ''
      ? { token: uuid, keepUntilMs: Date.now() + POSTHOG_EVENT_TOKEN_MS }
      : undefined
  },
}
