import type { FastifyInstance } from 'fastify'
import { DEFAULT_PAGE_SIZE } from '../constants.js'
import { badRequest, notFound } from '../errors.js'
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

const ORDER_BY = ['name', 'domain', 'createdAt'] as const

/** `WebsitePage`: `{data, count, page, pageSize, orderBy}`, pages numbered from 1. */
function listWebsites(state: UmamiState, q: Query, filter: (w: WebsiteRecord) => boolean) {
  const { page, pageSize } = pagingOf(q, DEFAULT_PAGE_SIZE)
  const orderBy = strParam(q, 'orderBy') ?? 'name'
  if (!(ORDER_BY as readonly string[]).includes(orderBy)) {
    throw badRequest(`orderBy: Invalid enum value. Expected ${ORDER_BY.map((o) => `'${o}'`).join(' | ')}`)
  }
  const descending = strParam(q, 'sortDescending')
  if (descending !== undefined && descending !== 'true' && descending !== 'false') {
    throw badRequest('sortDescending: Expected boolean')
  }
  const search = strParam(q, 'search')?.toLowerCase()
  const key = orderBy as (typeof ORDER_BY)[number]
  const rows = [...state.websites.values()]
    .filter((w) => w.deletedAt === null && filter(w))
    .filter(
      (w) =>
        !search || w.name.toLowerCase().includes(search) || (w.domain ?? '').toLowerCase().includes(search),
    )
    .sort((a, b) => {
      const x = a[key] ?? ''
      const y = b[key] ?? ''
      return (x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : 1) * (descending === 'true' ? -1 : 1)
    })
  return {
    data: rows.slice((page - 1) * pageSize, page * pageSize).map(websiteJson),
    count: rows.length,
    page,
    pageSize,
    orderBy,
  }
}

type Body = Record<string, unknown>

function checkWebsiteBody(body: Body, creating: boolean): void {
  const allowed = ['name', 'domain', 'shareId', 'teamId', 'id', 'replayConfig']
  const strings = (name: string, max: number) => {
    const v = body[name]
    if (v === undefined || v === null) return
    if (typeof v !== 'string') throw badRequest(`${name}: Expected string, received ${typeof v}`)
    if (v.length > max) throw badRequest(`${name}: String must contain at most ${max} character(s)`)
  }
  strings('name', 100)
  strings('domain', 500)
  strings('shareId', 50)
  if (creating) {
    if (typeof body.name !== 'string') throw badRequest('name: Required')
    if (typeof body.domain !== 'string') throw badRequest('domain: Required')
    if (body.teamId !== undefined && (typeof body.teamId !== 'string' || !isUuidLike(body.teamId))) {
      throw badRequest('teamId: Invalid uuid')
    }
  } else if (body.teamId !== undefined) {
    throw badRequest("Unrecognized key(s) in object: 'teamId'")
  }
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k))
  if (unknown.length > 0)
    throw badRequest(`Unrecognized key(s) in object: ${unknown.map((k) => `'${k}'`).join(', ')}`)
}

export function registerWebsiteRoutes(app: FastifyInstance, state: UmamiState): void {
  // Team websites are listed only with includeTeams=true, as Umami does.
  app.get('/websites', async (request) => {
    const q = request.query as Query
    const teams = strParam(q, 'includeTeams')
    if (teams !== undefined && teams !== 'true' && teams !== 'false')
      throw badRequest('includeTeams: Expected boolean')
    return listWebsites(state, q, (w) => teams === 'true' || w.userId === state.userId)
  })
  app.get('/me/websites', async (request) =>
    listWebsites(state, request.query as Query, (w) => w.userId === state.userId),
  )
  app.get('/teams/:teamId/websites', async (request) => {
    const { teamId } = request.params as { teamId: string }
    if (![...state.websites.values()].some((w) => w.teamId === teamId)) throw notFound()
    return listWebsites(state, request.query as Query, (w) => w.teamId === teamId)
  })

  app.post('/websites', async (request) => {
    const body = (request.body ?? {}) as Body
    checkWebsiteBody(body, true)
    const now = Date.now()
    const id = typeof body.id === 'string' ? body.id : state.newId()
    if (state.websites.has(id)) throw badRequest('Website already exists.')
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
    if (!w) throw notFound()
    return websiteJson(w)
  })

  // Umami updates a website with POST, never PUT or PATCH.
  app.post('/websites/:websiteId', async (request) => {
    const w = state.liveWebsite((request.params as { websiteId: string }).websiteId)
    if (!w) throw notFound()
    const body = (request.body ?? {}) as Body
    checkWebsiteBody(body, false)
    if (typeof body.name === 'string') w.name = body.name
    if (typeof body.domain === 'string') w.domain = body.domain
    if (body.shareId !== undefined) w.shareId = (body.shareId as string | null) ?? null
    w.updatedAt = Date.now()
    return websiteJson(w)
  })

  app.delete('/websites/:websiteId', async (request) => {
    const w = state.liveWebsite((request.params as { websiteId: string }).websiteId)
    if (!w) throw notFound()
    w.deletedAt = Date.now()
    return { ok: true }
  })
}
