import type { HandlerContext } from '../types.js'
import { callMatomo } from './client.js'
import type { MatomoSite } from './provider-types.js'

/**
 * The site's timezone, which Live's action times are written in (see actionInstants); one
 * SitesManager call.
 */
export async function siteTimezone(
  ctx: Pick<HandlerContext, 'client' | 'credentials'>,
  idSite: string,
): Promise<string | undefined> {
  const site = await callMatomo<MatomoSite>(ctx, 'SitesManager.getSiteFromId', { idSite })
  return typeof site?.timezone === 'string' ? site.timezone : undefined
}
