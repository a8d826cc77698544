import { notFound } from '../../errors.js'
import type { ProviderRequest } from '../http-client.js'
import type { Credentials, HandlerContext, ObjectHandlers } from '../types.js'
import { mixpanelHosts } from './hosts.js'
import { fromMixpanelProject } from './mappers.js'
import type { MixpanelMe, MixpanelProject } from './provider-types.js'

/** The App API call that names the service account's projects; projects are made in the UI only. */
export const meRequest = (credentials: Credentials): ProviderRequest => ({
  path: '/api/app/me',
  baseUrl: mixpanelHosts(credentials).query,
})

/** The projects an `/api/app/me` answer names, by id. */
export const projectsIn = (me: MixpanelMe | undefined) =>
  Object.entries(me?.results?.projects ?? {}) as Array<[string, MixpanelProject]>

/** The projects the service account can see; the caller's raw parameters go with the call, if any. */
export async function projectsOf(ctx: Pick<HandlerContext, 'client' | 'credentials' | 'rawParams'>) {
  const me = meRequest(ctx.credentials)
  return projectsIn(await ctx.client.json<MixpanelMe>({ ...me, query: { ...ctx.rawParams } }))
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
