import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Form } from './authority.js'

/** OAuth endpoints take form posts; the emulator's JSON routes never see one, so this parser is theirs. */
export function ensureFormParser(app: FastifyInstance): void {
  if (app.hasContentTypeParser('application/x-www-form-urlencoded')) return
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))))
  })
}

/** The request's string parameters, body first, then query (the authorize page takes both). */
export function formOf(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const source of [request.body, request.query]) {
    if (!source || typeof source !== 'object') continue
    for (const [k, v] of Object.entries(source as Record<string, unknown>))
      if (typeof v === 'string') out[k] ??= v
  }
  return out
}

/** Client credentials may come as HTTP Basic instead of form fields (RFC 6749 2.3.1). */
export function withBasicClient(request: FastifyRequest, form: Record<string, string | undefined>): Form {
  const m = /^Basic\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))
  if (!m?.[1]) return form
  const decoded = Buffer.from(m[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return form
  return {
    ...form,
    client_id: decodeURIComponent(decoded.slice(0, colon)),
    client_secret: decodeURIComponent(decoded.slice(colon + 1)),
  }
}

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
