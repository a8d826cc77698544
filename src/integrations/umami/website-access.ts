import { notFound, ProviderError } from '../../errors.js'
import type { HandlerContext } from '../types.js'

/**
 * Umami answers 401, not 404, for what the caller may not see, including what does not exist: a website
 * (`canViewWebsite` is false: umami-software/umami@v3.1.0:src/permissions/website.ts) or a team (`GET
 * /teams/{teamId}/websites` answers `unauthorized()` when `canViewTeam` is false:
 * umami-software/umami@24a9a59:src/app/api/teams/[teamId]/websites/route.ts). A 401 from such a path is
 * therefore checked against `GET /me`: if the credentials still work, the website or team is what was
 * refused, and the caller gets a 404 (`missing`) rather than a broken-connection error.
 */
async function visibleOr404<T>(ctx: HandlerContext, missing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (!(err instanceof ProviderError) || err.status !== 401) throw err
    const credentialsWork = await ctx.client.json({ path: '/me' }).then(
      () => true,
      () => false,
    )
    if (!credentialsWork) throw err
    throw notFound(missing)
  }
}

/** A call on one website's path; a website the connection cannot see is a 404. */
export function onWebsite<T>(ctx: HandlerContext, website: string, call: () => Promise<T>): Promise<T> {
  return visibleOr404(ctx, `website ${website} not found, or not visible to this Umami connection`, call)
}

/** A call on one team's path (the `parent_id` filter); a team the connection cannot see is a 404. */
export function onTeam<T>(ctx: HandlerContext, team: string, call: () => Promise<T>): Promise<T> {
  return visibleOr404(ctx, `parent_id: team ${team} not found, or not visible to this Umami connection`, call)
}
