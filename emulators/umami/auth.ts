import type { FastifyInstance } from 'fastify'
import { UmamiHttpError } from './errors.js'
import type { UmamiState } from './state.js'

/** Collect endpoints and login take no credentials (the website id is in the body). */
const PUBLIC = new Set(['/api/send', '/api/batch', '/api/heartbeat', '/api/auth/login'])

/**
 * Umami Cloud (`/v1/...`) reads an API key from `x-umami-api-key`, and keys may not touch users
 * (https://umami.is/docs/cloud/api-key, "Not allowed"). A self-hosted server (`/api/...`) has no API
 * keys: it takes only a Bearer login token from `POST /api/auth/login` (umami-software/umami@v3.1.0:
 * src/lib/auth.ts `checkAuth`, src/app/api/auth/login/route.ts). Anything else is 401.
 */
export function installUmamiAuth(app: FastifyInstance, state: UmamiState): void {
  app.addHook('preHandler', async (request) => {
    const path = request.url.split('?')[0] ?? ''
    if (PUBLIC.has(path) || path.startsWith('/__emulator/')) return
    if (path.startsWith('/v1/')) {
      const key = request.headers['x-umami-api-key']
      if (typeof key !== 'string' || !state.apiKeys.has(key)) throw new UmamiHttpError(401)
      if (/^\/v1\/(users|me\/password)(\/|$)/.test(path)) throw new UmamiHttpError(403)
      return
    }
    if (path.startsWith('/api/')) {
      const token = request.headers.authorization?.split(' ')[1]
      if (!token || !state.loginTokens.has(token)) throw new UmamiHttpError(401)
    }
  })
}

/**
 * `POST /api/auth/login {username, password}` answers `{token, user}`; wrong credentials are 401 with
 * code `incorrect-username-password` (umami-software/umami@v3.1.0:src/app/api/auth/login/route.ts).
 */
export function registerLoginRoute(app: FastifyInstance, state: UmamiState): void {
  app.post('/api/auth/login', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    for (const field of ['username', 'password']) {
      if (typeof body[field] !== 'string') throw new UmamiHttpError(400, `${field}: Required`)
    }
    if (body.username !== state.user.username || body.password !== state.user.password) {
      return reply.code(401).send({
        error: { message: 'Unauthorized', code: 'incorrect-username-password', status: 401 },
      })
    }
    const token = `umami_login_${state.newId()}`
    state.loginTokens.add(token)
    return {
      token,
      user: {
        id: state.userId,
        username: state.user.username,
        // A plain user: an admin would see every website (and get 200 `null` for an unknown one).
        role: 'user',
        createdAt: new Date(state.options.untilMs - 400 * 86_400_000).toISOString(),
        isAdmin: false,
        teams: [],
      },
    }
  })
}
