import { notFound, ProviderError } from '../../errors.js'
import type { ObjectHandlers } from '../types.js'
import { callMatomo } from './client.js'
import { parseVisitorKey } from './ids.js'
import { fromMatomoVisitorProfile } from './mappers.js'
import type { MatomoVisitorProfile } from './provider-types.js'
import { segmentOf } from './visit-walk.js'

/** A row of PrivacyManager.findDataSubjects (Live visit columns, camel case). */
type DataSubject = { idSite?: string | number; idsite?: string; idVisit?: string | number; idvisit?: string }

/** Rounds of 401 visits one deletion may take (about 40,000 visits) before it gives up loudly. */
const MAX_DELETE_ROUNDS = 100

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
  /**
   * GDPR tool: find the visitor's visits (data subjects), delete them, and repeat: findDataSubjects
   * answers at most 401 visits (matomo-org/matomo@f09912cb:plugins/PrivacyManager/API.php), so one
   * round can leave later visits behind. Success only once a find comes back empty.
   */
  async remove(ctx, id) {
    const { idSite, visitorId } = parseVisitorKey(id)
    const segment = segmentOf([['visitorId', visitorId]])
    const deleted = new Set<string>()
    for (let round = 0; ; round++) {
      const visits = await callMatomo<DataSubject[]>(ctx, 'PrivacyManager.findDataSubjects', {
        idSite,
        segment,
      })
      if (!Array.isArray(visits) || visits.length === 0) {
        if (round === 0) throw notFound(`Matomo visitor ${id} not found`)
        return
      }
      const keys = visits.map((v) => `${v.idSite ?? v.idsite ?? idSite}:${v.idVisit ?? v.idvisit}`)
      // Visits deleted once and found again mean the deletion did not take: stop rather than loop.
      if (round >= MAX_DELETE_ROUNDS || keys.some((k) => deleted.has(k))) {
        throw new ProviderError(
          502,
          `Matomo still lists ${visits.length} visit(s) of visitor ${id} after deleting ${deleted.size}; the visitor was not fully deleted`,
        )
      }
      const params: Record<string, string> = {}
      keys.forEach((key, i) => {
        const [site, visit] = key.split(':')
        params[`visits[${i}][idsite]`] = site as string
        params[`visits[${i}][idvisit]`] = visit as string
      })
      await callMatomo(ctx, 'PrivacyManager.deleteDataSubjects', params)
      for (const k of keys) deleted.add(k)
    }
  },
  listParams: [],
  filters: [],
}
