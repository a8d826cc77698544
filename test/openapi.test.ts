import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODELS } from '../src/models/index.js'
import { type Harness, startHarness } from './support/harness.js'

/** The operation ids of the official SDK (sdk-contract section 1), which the OpenAPI must name the same way. */
const SDK_OPERATIONS = [
  ['get', '/analytics/{connection_id}/property', 'listAnalyticsProperties'],
  ['post', '/analytics/{connection_id}/property', 'createAnalyticsProperty'],
  ['get', '/analytics/{connection_id}/property/{id}', 'getAnalyticsProperty'],
  ['put', '/analytics/{connection_id}/property/{id}', 'updateAnalyticsProperty'],
  ['patch', '/analytics/{connection_id}/property/{id}', 'patchAnalyticsProperty'],
  ['delete', '/analytics/{connection_id}/property/{id}', 'removeAnalyticsProperty'],
  ['get', '/analytics/{connection_id}/event', 'listAnalyticsEvents'],
  ['post', '/analytics/{connection_id}/event', 'createAnalyticsEvent'],
  ['get', '/analytics/{connection_id}/event/{id}', 'getAnalyticsEvent'],
  ['get', '/analytics/{connection_id}/session', 'listAnalyticsSessions'],
  ['get', '/analytics/{connection_id}/session/{id}', 'getAnalyticsSession'],
  ['get', '/analytics/{connection_id}/visitor', 'listAnalyticsVisitors'],
  ['post', '/analytics/{connection_id}/visitor', 'createAnalyticsVisitor'],
  ['get', '/analytics/{connection_id}/visitor/{id}', 'getAnalyticsVisitor'],
  ['put', '/analytics/{connection_id}/visitor/{id}', 'updateAnalyticsVisitor'],
  ['patch', '/analytics/{connection_id}/visitor/{id}', 'patchAnalyticsVisitor'],
  ['delete', '/analytics/{connection_id}/visitor/{id}', 'removeAnalyticsVisitor'],
  ['get', '/analytics/{connection_id}/report', 'listAnalyticsReports'],
  ['get', '/unified/connection', 'listUnifiedConnections'],
  ['post', '/unified/connection', 'createUnifiedConnection'],
  ['get', '/unified/connection/{id}', 'getUnifiedConnection'],
  ['put', '/unified/connection/{id}', 'updateUnifiedConnection'],
  ['patch', '/unified/connection/{id}', 'patchUnifiedConnection'],
  ['delete', '/unified/connection/{id}', 'removeUnifiedConnection'],
  ['get', '/unified/integration', 'listUnifiedIntegrations'],
  ['get', '/unified/integration/workspace/{workspace_id}', 'listUnifiedIntegrationWorkspaces'],
] as const

type OpenApi = {
  openapi: string
  paths: Record<string, Record<string, { operationId?: string; parameters?: { name: string; in: string }[] }>>
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> }
}

describe('OpenAPI and the reference page', () => {
  let h: Harness
  let doc: OpenApi
  beforeAll(async () => {
    h = await startHarness('sqlite')
    doc = (await h.api<OpenApi>('GET', '/openapi.json', { key: null })).body
  })
  afterAll(async () => h?.close())

  it('is OpenAPI 3.1 with every SDK operation under its SDK name', () => {
    expect(doc.openapi).toBe('3.1.0')
    for (const [method, path, operationId] of SDK_OPERATIONS) {
      expect(doc.paths[path]?.[method]?.operationId, `${method} ${path}`).toBe(operationId)
    }
  })

  it('names, on a list parameter, the integrations that cannot list without it', () => {
    const params = doc.paths['/analytics/{connection_id}/report']?.get?.parameters as
      | { name: string; schema?: Record<string, unknown>; description?: string }[]
      | undefined
    const property = params?.find((p) => p.name === 'property_id')
    const requiredBy =
      property?.schema?.['x-required-by'] ?? (property as Record<string, unknown>)?.['x-required-by']
    expect(requiredBy).toEqual(['fathom', 'googleanalytics', 'matomo', 'plausible', 'umami'])
    expect(JSON.stringify(property)).toContain(
      'Required by fathom, googleanalytics, matomo, plausible, umami',
    )
    const posthogOnly = params?.find((p) => p.name === 'dimension')
    expect(JSON.stringify(posthogOnly)).not.toContain('Required by')
  })

  it('generates each model schema from the same TypeBox models the server validates with', () => {
    for (const model of MODELS) {
      const schema = doc.components.schemas[model.singular]
      expect(Object.keys(schema?.properties ?? {}).sort()).toEqual([...model.fieldNames].sort())
    }
  })

  it('documents the list filters of each object', () => {
    const params = doc.paths['/analytics/{connection_id}/event']?.get?.parameters?.map((p) => p.name)
    expect(params).toEqual(
      expect.arrayContaining(['fields', 'raw', 'limit', 'offset', 'property_id', 'start_gte', 'end_lt']),
    )
  })

  it('serves a readable reference page at /docs', async () => {
    const res = await h.api('GET', '/docs/', { key: null })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toMatch(/text\/html/)
    expect(res.text).toContain('swagger')
    // No other site may frame it (clickjacking) or have a browser sniff its answers into another type.
    expect(res.headers['x-frame-options']).toBe('DENY')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'")
  })

  it('gives the reference page the same document as /openapi.json, built once for both', async () => {
    // Both are built on first use by one documented instance of the app (src/http/documentation.ts).
    const [fromPage, again] = await Promise.all([
      h.api<OpenApi>('GET', '/docs/json', { key: null }),
      h.api<OpenApi>('GET', '/openapi.json', { key: null }),
    ])
    expect(fromPage.status).toBe(200)
    expect(fromPage.body).toEqual(doc)
    expect(again.body).toEqual(doc)
    const css = await h.api('GET', '/docs/static/index.css', { key: null })
    expect(css.status).toBe(200)
    expect(css.headers['content-type']).toMatch(/text\/css/)
  })

  it('answers an unknown route with a 404 JSON body that says where to look', async () => {
    const res = await h.api('GET', '/nope', { key: null })
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({
      statusCode: 404,
      error: 'Not Found',
      message: expect.stringContaining('/docs'),
    })
  })
})
