import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * PostHog's OAuth views live only at their trailing-slash addresses; Django's CommonMiddleware answers
 * the slashless one with a 301 (which a POST's form does not survive). The router ignores trailing
 * slashes, so this restores the difference. Answers whether it redirected.
 */
export function redirectedToSlash(request: FastifyRequest, reply: FastifyReply): boolean {
  const raw = request.raw.url ?? request.url
  const q = raw.indexOf('?')
  const path = q < 0 ? raw : raw.slice(0, q)
  if (path.endsWith('/')) return false
  void reply.redirect(`${path}/${q < 0 ? '' : raw.slice(q)}`, 301)
  return true
}
