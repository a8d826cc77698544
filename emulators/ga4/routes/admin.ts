import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requireGrant } from '../../google/bearer.js'
import { GoogleApiError, invalidArgument } from '../../google/errors.js'
import { decodePageToken, encodePageToken } from '../../google/page-tokens.js'
import { bindQuery } from '../../google/query-binding.js'
import { pageSizeOf } from '../admin-store.js'
import { ADMIN_READ_SCOPES, ADMIN_WRITE_SCOPES, type Ga4State } from '../state.js'

type Query = Record<string, string | undefined>

/** One page of a listing, with Google's `nextPageToken` (left out on the last page). */
function page<T>(items: readonly T[], listing: string, query: Query) {
  const size = pageSizeOf(query.pageSize)
  const offset = decodePageToken(query.pageToken, listing)
  const slice = items.slice(offset, offset + size)
  const next = offset + size < items.length ? encodePageToken(listing, offset + size) : undefined
  return { slice, next }
}

function propertyName(request: FastifyRequest): string {
  const id = (request.params as { id: string }).id
  if (!/^\d+$/.test(id)) throw invalidArgument(`Invalid property name: properties/${id}`)
  return `properties/${id}`
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw invalidArgument('Invalid JSON payload received. Expected an object.')
  return body as Record<string, unknown>
}

/**
 * Admin API v1beta: account summaries, accounts, properties CRUD (soft delete), data streams, with paths,
 * list fields and page tokens as googleapis/googleapis@99b25248:google/analytics/admin/v1beta/
 * analytics_admin.proto defines them (ListAccountSummaries, ListAccounts, ListProperties with its required
 * `filter` and `show_deleted`, Get/Create/Update/DeleteProperty, ListDataStreams).
 */
export function registerAdminRoutes(app: FastifyInstance, state: Ga4State): void {
  // The query fields of each method's request message (the same proto), by their JSON names; their proto
  // names (`page_size`) bind to the same fields (bindQuery).
  const PAGING = ['pageSize', 'pageToken']
  const bound: Readonly<Record<string, readonly string[]>> = {
    'GET /v1beta/accountSummaries': PAGING,
    'GET /v1beta/accounts': [...PAGING, 'showDeleted'],
    'GET /v1beta/properties': [...PAGING, 'filter', 'showDeleted'],
    'PATCH /v1beta/properties/:id': ['updateMask'],
    'GET /v1beta/properties/:id/dataStreams': PAGING,
  }
  const bindable = (request: FastifyRequest) => bound[`${request.method} ${request.routeOptions.url}`] ?? []
  const read = (request: FastifyRequest) => {
    requireGrant(state.bearer('analyticsadmin.googleapis.com'), request, ADMIN_READ_SCOPES)
    bindQuery(request.query, bindable(request))
  }
  const write = (request: FastifyRequest) => {
    requireGrant(state.bearer('analyticsadmin.googleapis.com'), request, ADMIN_WRITE_SCOPES)
    bindQuery(request.query, bindable(request))
  }

  app.get('/v1beta/accountSummaries', async (request) => {
    read(request)
    const summaries = state.seed.accounts.map((a) => ({
      name: `accountSummaries/${a.name.slice('accounts/'.length)}`,
      account: a.name,
      displayName: a.displayName,
      propertySummaries: state.admin.properties
        .filter((p) => p.account === a.name && !p.deleteTime)
        .map((p) => ({
          property: p.name,
          displayName: p.displayName,
          propertyType: p.propertyType,
          parent: p.parent,
        })),
    }))
    const { slice, next } = page(summaries, 'accountSummaries', request.query as Query)
    return { accountSummaries: slice, ...(next ? { nextPageToken: next } : {}) }
  })

  app.get('/v1beta/accounts', async (request) => {
    read(request)
    const { slice, next } = page(state.seed.accounts, 'accounts', request.query as Query)
    return { accounts: slice, ...(next ? { nextPageToken: next } : {}) }
  })

  app.get('/v1beta/properties', async (request) => {
    read(request)
    const q = request.query as Query
    const showDeleted = q.showDeleted === 'true'
    const all = state.admin.filtered(q.filter, showDeleted)
    const { slice, next } = page(all, `properties:${q.filter}:${showDeleted}`, q)
    return { properties: slice, ...(next ? { nextPageToken: next } : {}) }
  })

  app.get('/v1beta/properties/:id', async (request) => {
    read(request)
    const property = state.admin.find(propertyName(request))
    if (!property) throw new GoogleApiError(404, `Property ${propertyName(request)} not found.`)
    return property
  })

  app.post('/v1beta/properties', async (request) => {
    write(request)
    return state.admin.create(bodyOf(request))
  })

  app.patch('/v1beta/properties/:id', async (request) => {
    write(request)
    return state.admin.update(propertyName(request), (request.query as Query).updateMask, bodyOf(request))
  })

  app.delete('/v1beta/properties/:id', async (request) => {
    write(request)
    return state.admin.remove(propertyName(request))
  })

  app.get('/v1beta/properties/:id/dataStreams', async (request) => {
    read(request)
    const name = propertyName(request)
    if (!state.admin.find(name)) throw new GoogleApiError(404, `Property ${name} not found.`)
    const streams = state.seed.streams
      .filter((s) => s.property === name)
      .map((s) => ({
        name: s.name,
        type: 'WEB_DATA_STREAM',
        displayName: 'Web',
        webStreamData: { measurementId: s.measurementId, defaultUri: s.defaultUri },
      }))
    const { slice, next } = page(streams, `streams:${name}`, request.query as Query)
    return { dataStreams: slice, ...(next ? { nextPageToken: next } : {}) }
  })
}
