import { randomUUID } from 'node:crypto'
import { badRequest, notFound, ProviderError } from '../../errors.js'
import type { UnifiedRecord } from '../../models/index.js'
import { rawOf } from '../analytics-values.js'
import { refuseCutStrings } from '../string-limits.js'
import type { HandlerContext, ObjectHandlers, WriteBody } from '../types.js'
import { amplitudeHosts } from './hosts.js'
import { AMPLITUDE_STRINGS } from './limits.js'
import {
  amplitudeIdentityOf,
  DEVICE_VISITOR_PREFIX,
  fromAmplitudeUser,
  toAmplitudeUserProperties,
} from './mappers.js'
import type { AmplitudeDeletionJob, AmplitudeUserActivity, AmplitudeUserSearch } from './provider-types.js'
import { seenVisitors } from './seen-visitors.js'

/** Fields only User Activity knows: one more call per visitor (User Search gives ids only). */
export const VISITOR_SLOW_FIELDS = [
  'email',
  'name',
  'country',
  'country_code',
  'city',
  'language',
  'first_seen_at',
  'last_seen_at',
  'total_sessions',
  'total_events',
  'metadata',
]

type Match = AmplitudeUserSearch['matches'][number]

async function search(ctx: HandlerContext, user: string): Promise<Match[]> {
  const answer = await ctx.client.json<AmplitudeUserSearch>({
    path: '/api/2/usersearch',
    baseUrl: amplitudeHosts(ctx.credentials).analytics,
    query: { ...ctx.rawParams, user },
  })
  return [...(answer?.matches ?? [])]
}

/** Search answers no device ids: an anonymous user is known by its Amplitude ID until its devices are read. */
const idOf = (m: Match) => (m.user_id ? m.user_id : String(m.amplitude_id))

async function activityOf(ctx: HandlerContext, match: Match): Promise<AmplitudeUserActivity | undefined> {
  return ctx.client.json<AmplitudeUserActivity>({
    path: '/api/2/useractivity',
    baseUrl: amplitudeHosts(ctx.credentials).analytics,
    query: { user: match.amplitude_id, limit: 1 },
  })
}

/**
 * Whether the request needs User Activity's details: a slow field, or `raw` or any `raw.<name>`, which
 * picks from the `raw` that `fields=raw` answers (the user's details), not from the search match.
 */
const wantsDetails = (ctx: HandlerContext): boolean =>
  ctx.fields.slow.size > 0 || ctx.fields.raw || ctx.fields.rawNames.length > 0

async function withDetails(ctx: HandlerContext, match: Match, id = idOf(match)): Promise<UnifiedRecord> {
  if (!wantsDetails(ctx)) return { id, raw: { ...match } }
  const activity = await activityOf(ctx, match)
  return fromAmplitudeUser(id, activity?.userData, activity?.events)
}

/**
 * A search match as a listed visitor. An anonymous user (no user id) is named as its events name it,
 * `device:<device id>`, which costs one User Activity call: Search does not answer device ids. Search
 * matches anonymous users only by their exact device or Amplitude ID, so this stays rare.
 */
async function listed(ctx: HandlerContext, match: Match): Promise<UnifiedRecord> {
  if (match.user_id) return withDetails(ctx, match)
  const activity = await activityOf(ctx, match)
  const device = activity?.userData?.device_ids?.[0]
  const id = device ? `${DEVICE_VISITOR_PREFIX}${device}` : String(match.amplitude_id)
  if (!wantsDetails(ctx)) return { id, raw: { ...match } }
  return fromAmplitudeUser(id, activity?.userData, activity?.events)
}

/**
 * The user a unified visitor id names: a user id or Amplitude ID, or `device:<device id>` for a visitor
 * known only by its device (how anonymous events name their visitor). User Search matches device ids
 * too but does not say which match is whose device, so a device match is confirmed by the user's
 * `device_ids` (User Activity).
 */
async function findUser(ctx: HandlerContext, id: string): Promise<Match> {
  const identity = amplitudeIdentityOf(id)
  if ('device_id' in identity) {
    for (const m of await search(ctx, identity.device_id)) {
      if ((await activityOf(ctx, m))?.userData?.device_ids?.includes(identity.device_id)) return m
    }
  } else {
    const match = (await search(ctx, id)).find((m) => m.user_id === id || String(m.amplitude_id) === id)
    if (match) return match
  }
  throw notFound(`Amplitude visitor ${id} not found`)
}

type Identity = { user_id: string } | { device_id: string }

/**
 * What a User Privacy API answer says of one user: a job holds it (`scheduled`), it is one of the
 * `invalid_ids` Amplitude has no data of (`invalid`), or neither (`absent`). The docs name the fields but
 * show no example, so one job or a list of them, and ids as objects or plain numbers, are all read.
 */
export function deletionOutcome(answer: unknown, amplitudeId: number): 'scheduled' | 'invalid' | 'absent' {
  const jobs = (
    Array.isArray(answer) ? answer : answer && typeof answer === 'object' ? [answer] : []
  ) as AmplitudeDeletionJob[]
  const same = (v: unknown) => String(v) === String(amplitudeId)
  if (jobs.some((j) => (j.invalid_ids ?? []).some(same))) return 'invalid'
  const listed = (a: unknown) =>
    same(a && typeof a === 'object' ? (a as { amplitude_id?: unknown }).amplitude_id : a)
  return jobs.some((j) => (j.amplitude_ids ?? []).some(listed)) ? 'scheduled' : 'absent'
}

/**
 * Who `/identify` must name to change the user found: Identify knows only `user_id` and `device_id`, and a
 * `user_id` Amplitude has not seen makes a new user (identify.md). So a user found by its Amplitude ID is
 * named by its own user id, or, when it has none (an anonymous user), by one of its devices.
 */
async function identityOfMatch(ctx: HandlerContext, id: string, match: Match): Promise<Identity> {
  const given = amplitudeIdentityOf(id)
  if ('device_id' in given) return given
  if (match.user_id) return { user_id: match.user_id }
  const device = (await activityOf(ctx, match))?.userData?.device_ids?.[0]
  if (!device) {
    throw new ProviderError(
      502,
      `Amplitude knows no user id or device of visitor ${id}, so it cannot be updated`,
    )
  }
  return { device_id: device }
}

/** `/identify` takes a form with the API key and a JSON list of identifications; it answers `success`. */
async function identify(
  ctx: HandlerContext,
  id: string,
  body: WriteBody,
  identity: Identity = amplitudeIdentityOf(id),
): Promise<UnifiedRecord> {
  refuseCutStrings(body, AMPLITUDE_STRINGS)
  const set = toAmplitudeUserProperties(body)
  if (Object.keys(set).length === 0) throw badRequest('nothing to set on the Amplitude user')
  const identification = { ...identity, user_properties: { $set: set } }
  const form = new URLSearchParams({
    api_key: ctx.credentials.api_key ?? '',
    identification: JSON.stringify([identification]),
  })
  const answer = await ctx.client.json<unknown>({
    method: 'POST',
    path: '/identify',
    baseUrl: amplitudeHosts(ctx.credentials).ingest,
    // The Identify API takes the key in the form and no header: the secret key stays off the ingestion host.
    authenticate: false,
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    // An identify sets properties: repeating it changes nothing.
    idempotent: true,
  })
  if (answer !== 'success')
    throw new ProviderError(502, `Amplitude answered the identify with ${String(answer)}`)
  // Identify is processed asynchronously at Amplitude: answer what was set rather than re-reading.
  const { raw: _raw, ...fields } = body
  return { ...fields, id, raw: identification }
}

export const visitorHandlers: ObjectHandlers = {
  // User Search's `user` is the visitor id or `query`: a raw one would lose to it.
  rawOwned: { user: 'use query or the visitor id' },
  /**
   * With `query`, User Search (a user id, device id or user id prefix). Without, the users the export shows
   * in the default window (seen-visitors.ts): Amplitude has no user listing. Either way details (slow
   * fields) cost one User Activity call per visitor.
   */
  async list(ctx, q) {
    if (!q.query) {
      const details = wantsDetails(ctx)
      const out: UnifiedRecord[] = []
      for (const v of await seenVisitors(ctx, q)) {
        const match = { user_id: v.user_id, amplitude_id: v.amplitude_id }
        out.push(
          details
            ? await withDetails(ctx, match, v.id)
            : { id: v.id, raw: { ...match, device_id: v.device_id } },
        )
      }
      return out
    }
    const matches = (await search(ctx, q.query)).slice(q.offset, q.offset + q.limit)
    const out: UnifiedRecord[] = []
    for (const m of matches) out.push(await listed(ctx, m))
    return out
  },
  async get(ctx, id) {
    return withDetails(ctx, await findUser(ctx, id), id.startsWith(DEVICE_VISITOR_PREFIX) ? id : undefined)
  },
  async create(ctx, body) {
    const raw = rawOf(body)
    return identify(ctx, typeof raw.user_id === 'string' && raw.user_id ? raw.user_id : randomUUID(), body)
  },
  async update(ctx, id, body) {
    return identify(ctx, id, body, await identityOfMatch(ctx, id, await findUser(ctx, id)))
  },
  async patch(ctx, id, body) {
    return identify(ctx, id, body, await identityOfMatch(ctx, id, await findUser(ctx, id)))
  },
  /**
   * User Privacy API: the deletion is a job Amplitude runs later. `ignore_invalid_id` is a JSON boolean:
   * with it, Amplitude answers 200 even for a user it has no data of, listing it in `invalid_ids` and
   * scheduling nothing; so the remove succeeds only when a job of the answer holds the user.
   */
  async remove(ctx, id) {
    const match = await findUser(ctx, id)
    const jobs = await ctx.client.json<unknown>({
      method: 'POST',
      path: '/api/2/deletions/users',
      baseUrl: amplitudeHosts(ctx.credentials).analytics,
      body: { amplitude_ids: [match.amplitude_id], requester: 'unigate', ignore_invalid_id: true },
    })
    const outcome = deletionOutcome(jobs, match.amplitude_id)
    if (outcome !== 'scheduled') {
      throw new ProviderError(
        502,
        `Amplitude did not schedule the deletion of visitor ${id} (Amplitude ID ${match.amplitude_id})${outcome === 'invalid' ? ': it has no data of that user in this project' : ''}`,
      )
    }
  },
  listParams: ['query'],
  filters: [],
  slowFields: VISITOR_SLOW_FIELDS,
}
