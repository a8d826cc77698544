import type { FastifyInstance } from 'fastify'

/** Parses form posts into a flat object of strings (Fastify has no parser for them); once per app. */
export function installFormParser(app: FastifyInstance): void {
  if (app.hasContentTypeParser('application/x-www-form-urlencoded')) return
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))))
    },
  )
}

/** Parses `text/plain` bodies as JSON, keeping the text when it is not: browser trackers send JSON so to avoid CORS preflights. */
export function installTextJsonParser(app: FastifyInstance): void {
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(String(body)))
    } catch {
      done(null, body)
    }
  })
}
