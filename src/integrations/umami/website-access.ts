import { notFound, ProviderError } from '../../errors.js'
import type { HandlerContext } from '../types.js'

/**
 * Umami answers 401, not 404, for a website the caller may not see, including one that does not exist
 * (`canViewWebsite` is false: umami-software/umami@v3.1.0:src/permissions/website.ts). A 401 from a
 * website's path is therefore checked against `GET /me`: if the credentials still work, the website is
 * what was refused, and the caller gets a 404 rather than a broken-connection error.
 */
export async function onWebsite<T>(ctx: HandlerContext, website: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (!(err instanceof ProviderError) || err.status !== 401) throw err
    const credentialsWork = await ctx.client.json({ path: '/me' }).then(
      () => true,
      () => false,
    )
    if (!credentialsWork) throw err
    throw notFound(`website ${website} not found, or not visible to this Umami connection`)
  }
}
