import type { FastifyInstance } from 'fastify'
import { BamboohrHttpError } from './errors.js'
import type { BamboohrState } from './state.js'

/** The API-key gateway: `/api/gateway.php/{companyDomain}/v1/...` (documentation.bamboohr.com/docs/getting-started). */
export const GATEWAY = '/api/gateway.php/:domain/v1'

/**
 * Every gateway call authenticates with HTTP Basic, the API key as user name and any password ("x" by
 * convention); a missing or unknown key is 401 (documentation.bamboohr.com/docs/getting-started; the
 * `basic` scheme of specs/public.yaml in BambooHR/bhr-api-php@a6a10ca). A key belongs to one company's user,
 * so a key sent to another company's subdomain is unknown there: 401 too.
 */
export function installBamboohrAuth(app: FastifyInstance, state: BamboohrState): void {
  app.addHook('preHandler', async (request) => {
    if (!request.url.startsWith('/api/gateway.php/')) return
    const match = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')
    const user = match
      ? Buffer.from(match[1] as string, 'base64')
          .toString('utf8')
          .split(':')[0]
      : undefined
    const domain = (request.params as { domain?: string }).domain
    if (!user || !state.apiKeys.has(user) || domain !== state.options.domain) {
      throw new BamboohrHttpError(401, 'Invalid API key')
    }
  })
}
