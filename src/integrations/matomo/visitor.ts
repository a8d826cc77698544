import { notFound } from '../../errors.js'
import type { ObjectHandlers } from '../types.js'
import { callMatomo } from './client.js'
import { parseVisitorKey } from './ids.js'
import { fromMatomoVisitorProfile } from './mappers.js'
import type { MatomoVisitorProfile } from './provider-types.js'
import { segmentOf } from './visit-walk.js'

/**
 * Matomo has visitor profiles but no visitor listing (only visits, where one visitor repeats, so a
 * de-duplicated page could not honour offset), and no visitor writes except the GDPR tool's deletion.
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
  /** GDPR tool: find the visitor's visits (data subjects), then delete them all. */
  async remove(ctx, id) {
    const { idSite, visitorId } = parseVisitorKey(id)
    const visits = await callMatomo<
      Array<{ idSite?: string; idsite?: string; idVisit?: string; idvisit?: string }>
    >(ctx, 'PrivacyManager.findDataSubjects', { idSite, segment: segmentOf([['visitorId', visitorId]]) })
    if (!Array.isArray(visits) || visits.length === 0) throw notFound(`Matomo visitor ${id} not found`)
    const params: Record<string, string> = {}
    visits.forEach((v, i) => {
      params[`visits[${i}][idsite]`] = String(v.idsite ?? v.idSite ?? idSite)
      params[`visits[${i}][idvisit]`] = String(v.idvisit ?? v.idVisit)
    })
    await callMatomo(ctx, 'PrivacyManager.deleteDataSubjects', params)
  },
  listParams: [],
  filters: [],
}
