import { notFound } from '../../errors.js'
import type { ObjectHandlers } from '../types.js'
import { callMatomo } from './client.js'
import { parseVisitorKey } from './ids.js'
import { fromMatomoVisitorProfile } from './mappers.js'
import type { MatomoVisitorProfile } from './provider-types.js'

/**
 * Matomo has visitor profiles but no visitor listing (only visits, where one visitor repeats, so a
 * de-duplicated page could not honour offset), and no visitor writes: get only.
 */
export const visitorHandlers: ObjectHandlers = {
  async get(ctx, id) {
    const { idSite, visitorId } = parseVisitorKey(id)
    const profile = await callMatomo<MatomoVisitorProfile | [] | null>(ctx, 'Live.getVisitorProfile', {
      ...ctx.rawParams,
      idSite,
      visitorId,
    })
    // An unknown visitor comes back as an empty profile, not an error.
    if (!profile || Array.isArray(profile) || !profile.visitorId || Number(profile.totalVisits ?? 0) === 0) {
      throw notFound(`Matomo visitor ${id} not found`)
    }
    return fromMatomoVisitorProfile(idSite, profile)
  },
  listParams: [],
  filters: [],
}
