import type { FastifyRequest } from 'fastify'

/** An OAuth request's string parameters, body first, then query (authorize pages take both). */
export function formOf(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  for (const source of [request.body, request.query]) {
    if (!source || typeof source !== 'object') continue
    for (const [k, v] of Object.entries(source as Record<string, unknown>))
      if (typeof v === 'string') out[k] ??= v
  }
  return out
}

/** Client credentials may come as HTTP Basic instead of form fields (RFC 6749 section 2.3.1). */
export function withBasicClient(
  request: FastifyRequest,
  form: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const header = request.headers.authorization
  const m = typeof header === 'string' ? /^Basic\s+(\S+)$/i.exec(header) : null
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
