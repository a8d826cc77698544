import { notFound } from '../../errors.js'
import type { HandlerContext, ObjectHandlers } from '../types.js'
import { mixpanelHosts } from './hosts.js'
import { fromMixpanelProject } from './mappers.js'
import type { MixpanelMe, MixpanelProject } from './provider-types.js'

/** The projects the service account can see (App API `/api/app/me`); projects are made in the UI only. */
export async function projectsOf(ctx: Pick<HandlerContext, 'client' | 'credentials'>) {
  const me = await ctx.client.json<MixpanelMe>({
    path: '/api/app/me',
    baseUrl: mixpanelHosts(ctx.credentials).query,
  })
  return Object.entries(me?.results?.projects ?? {}) as Array<[string, MixpanelProject]>
}

export const propertyHandlers: ObjectHandlers = {
  async list(ctx, q) {
    return (await projectsOf(ctx))
      .slice(q.offset, q.offset + q.limit)
      .map(([id, project]) => fromMixpanelProject(id, project))
  },
  async get(ctx, id) {
    const found = (await projectsOf(ctx)).find(([projectId]) => projectId === id)
    if (!found) throw notFound(`Mixpanel project ${id} not found for this service account`)
    return fromMixpanelProject(...found)
  },
  listParams: [],
  filters: [],
  // Every site/project the token can see: one missing from a list was deleted.
  listIsComplete: true,
}
