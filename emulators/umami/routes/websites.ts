import type { FastifyInstance } from 'fastify'
import { DEFAULT_PAGE_SIZE } from '../constants.js'
import { badRequest, UmamiHttpError, unauthorized } from '../errors.js'
import { isUuidLike, pagingOf, type Query, strParam } from '../params.js'
import type { UmamiState, WebsiteRecord } from '../state.js'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export function websiteJson(w: WebsiteRecord) {
  return {
    id: w.id,
    name: w.name,
    domain: w.domain,
    shareId: w.shareId,
    teamId: w.teamId,
    userId: w.userId,
    createdBy: w.createdBy,
    resetAt: w.resetAt,
    recorderEnabled: false,
    replayConfig: null,
    createdAt: iso(w.createdAt),
    updatedAt: iso(w.updatedAt),
    deletedAt: iso(w.deletedAt),
  }
}

/** A stable order unrelated to name or creation time (FNV-1a of the id). */
function storageOrder(id: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0
  return h
}

/**
 * `WebsitePage`: `{data, count, page, pageSize, orderBy, search}`, pages numbered from 1. The route's
 * schema knows only page, pageSize, search (and includeTeams), so zod drops `orderBy`/`sortDescending`,
 * and `getQueryFilters` then sets `orderBy: undefined` over the query's default `name`: the list has no
 * ORDER BY at all. Rows come back in storage order, modelled here as a fixed order by id hash.
 * Sources: umami-software/umami@v3.1.0:src/app/api/websites/route.ts, src/lib/request.ts
 * (`getQueryFilters`), src/queries/prisma/website.ts (`getUserWebsites`), src/lib/prisma.ts (`pagedQuery`).
 */
function listWebsites(state: UmamiState, q: Query, filter: (w: WebsiteRecord) => boolean) {
  const { page, pageSize } = pagingOf(q, DEFAULT_PAGE_SIZE)
  const search = strParam(q, 'search')?.toLowerCase()
  const rows = [...state.websites.values()]
    .filter((w) => w.deletedAt === null && filter(w))
    .filter(
      (w) =>
        !search || w.name.toLowerCase().includes(search) || (w.domain ?? '').toLowerCase().includes(search),
    )
    .sort((a, b) => storageOrder(a.id) - storageOrder(b.id) || (a.id < b.id ? -1 : 1))
  return {
    data: rows.slice((page - 1) * pageSize, page * pageSize).map(websiteJson),
    count: rows.length,
    page,
    pageSize,
    orderBy: undefined,
    search: strParam(q, 'search'),
  }
}

type Body = Record<string, unknown>

/**
 * The create and update schemas. Create: `name` (at most 100) and `domain` (at most 500) required,
 * `shareId` at most 50, `teamId` and `id` UUIDs or null. Update: `name` and `domain` any length, `shareId`
 * at most 50. Both are plain zod objects, which drop keys they do not know (`teamId` on an update
 * included) instead of refusing them. Sources: umami-software/umami@v3.1.0:src/app/api/websites/route.ts
 * and src/app/api/websites/[websiteId]/route.ts (zod ^4.3.6 in package.json).
 */
function checkWebsiteBody(body: Body, creating: boolean): void {
  const strings = (name: string, max?: number) => {
    const v = body[name]
    if (v === undefined || v === null) return
    if (typeof v !== 'string') throw badRequest(`${name}: Expected string, received ${typeof v}`)
    if (max !== undefined && v.length > max)
      throw badRequest(`${name}: String must contain at most ${max} character(s)`)
  }
  strings('name', creating ? 100 : undefined)
  strings('domain', creating ? 500 : undefined)
  strings('shareId', 50)
  if (creating) {
    if (typeof body.name !== 'string') throw badRequest('name: Required')
    if (typeof body.domain !== 'string') throw badRequest('domain: Required')
    for (const field of ['teamId', 'id']) {
      const v = body[field]
      if (v !== undefined && v !== null && (typeof v !== 'string' || !isUuidLike(v))) {
        throw badRequest(`${field}: Invalid uuid`)
      }
    }
  }
}

export function registerWebsiteRoutes(app: FastifyInstance, state: UmamiState): void {
  // Team websites are listed whenever includeTeams is a non-empty string, even 'false': the schema takes
  // `z.string()` and the route tests truthiness (umami-software/umami@v3.1.0:src/app/api/websites/route.ts).
  app.get('/websites', async (request) => {
    const q = request.query as Query
    const teams = strParam(q, 'includeTeams')
    return listWebsites(state, q, (w) => teams !== undefined || w.userId === state.userId)
  })
  // `GET /me` answers the caller's auth: `{token, authKey, shareToken, user}`
  // (umami-software/umami@v3.1.0:src/app/api/me/route.ts, src/lib/auth.ts `checkAuth`).
  app.get('/me', async (request) => ({
    token: request.headers.authorization?.split(' ')[1] ?? null,
    authKey: null,
    shareToken: null,
    user: { id: state.userId, username: state.user.username, role: 'user', isAdmin: false },
  }))
  app.get('/me/websites', async (request) =>
    listWebsites(state, request.query as Query, (w) => w.userId === state.userId),
  )
  app.get('/teams/:teamId/websites', async (request) => {
    const { teamId } = request.params as { teamId: string }
    if (![...state.websites.values()].some((w) => w.teamId === teamId)) throw unauthorized()
    return listWebsites(state, request.query as Query, (w) => w.teamId === teamId)
  })

  app.post('/websites', async (request) => {
    const body = (request.body ?? {}) as Body
    checkWebsiteBody(body, true)
    const now = Date.now()
    const id = typeof body.id === 'string' ? body.id : state.newId()
    // A taken id fails Prisma's unique constraint, which the create route does not catch: a 500.
    if (state.websites.has(id)) throw new UmamiHttpError(500)
    const website: WebsiteRecord = {
      id,
      name: body.name as string,
      domain: body.domain as string,
      shareId: (body.shareId as string | undefined) ?? null,
      teamId: (body.teamId as string | undefined) ?? null,
      userId: body.teamId ? null : state.userId,
      createdBy: state.userId,
      resetAt: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    }
    state.websites.set(id, website)
    return websiteJson(website)
  })

  app.get('/websites/:websiteId', async (request) => {
    const w = state.liveWebsite((request.params as { websiteId: string }).websiteId)
    if (!w) throw unauthorized()
    return websiteJson(w)
  })

  // Umami updates a website with POST, never PUT or PATCH (src/app/api/websites/[websiteId]/route.ts).
  app.post('/websites/:websiteId', async (request) => {
    const w = state.liveWebsite((request.params as { websiteId: string }).websiteId)
    if (!w) throw unauthorized()
    const body = (request.body ?? {}) as Body
    checkWebsiteBody(body, false)
    if (typeof body.name === 'string') w.name = body.name
    if (typeof body.domain === 'string') w.domain = body.domain
    if (body.shareId !== undefined) w.shareId = (body.shareId as string | null) ?? null
    w.updatedAt = Date.now()
    return websiteJson(w)
  })

  // Delete answers `ok()`, `{ok: true}` (src/app/api/websites/[websiteId]/route.ts, src/lib/response.ts).
  app.delete('/websites/:websiteId', async (request) => {
    const w = state.liveWebsite((request.params as { websiteId: string }).websiteId)
    if (!w) throw unauthorized()
    w.deletedAt = Date.now()
    return { ok: true }
  })
}
