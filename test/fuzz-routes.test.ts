import fc from 'fast-check'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PosthogEmulator } from '../emulators/posthog/index.js'
import { type Harness, startHarness } from './support/harness.js'
import { connectPosthog, startPosthog } from './support/posthog.js'

/**
 * Property-based fuzzing of every route the OpenAPI document lists: whatever path, query and body a
 * caller sends, the server answers within a bound, never with a 5xx other than the provider-facing
 * 501/502/503/504, and every error is a JSON body with a message and no stack trace.
 */

interface Parameter {
  readonly name: string
  readonly in: 'path' | 'query' | 'header'
  readonly schema?: JsonSchema
}
interface JsonSchema {
  readonly $ref?: string
  readonly type?: string | string[]
  readonly enum?: readonly unknown[]
  readonly anyOf?: readonly JsonSchema[]
  readonly properties?: Record<string, JsonSchema>
  readonly items?: JsonSchema
}
interface Operation {
  readonly method: string
  readonly path: string
  readonly parameters: readonly Parameter[]
  readonly body?: JsonSchema
}

const ALLOWED_5XX = new Set([501, 502, 503, 504])
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 25)
const STACK_TRACE = /\bat [\w.<>]+ \(?[^)]*:\d+:\d+\)?/

/** Values that have broken servers before: huge and negative numbers, dot-segments, encodings, unicode. */
const nasty = fc.constantFrom(
  '',
  '0',
  '-1',
  '1e308',
  '10000000000',
  String(Number.MAX_SAFE_INTEGER),
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '../../etc/passwd',
  '..%2F..%2Fadmin',
  '%2e%2e%2f',
  '%00',
  '%',
  '\u0000',
  'ä😀\u202e',
  'a'.repeat(5000),
  'http://169.254.169.254/latest/meta-data/',
  'not a url',
  '2024-13-45',
  'id,name,raw,raw.$browser',
)
const text = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 20 }))

function valueFor(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  const options: fc.Arbitrary<string>[] = [text]
  const enums = schema?.enum ?? schema?.anyOf?.flatMap((s) => s.enum ?? [])
  if (enums && enums.length > 0) options.push(fc.constantFrom(...enums.map(String)))
  const type = schema?.type
  if (type === 'integer' || type === 'number') {
    options.push(fc.integer({ min: -1000, max: 1000 }).map(String), fc.double().map(String))
  }
  if (type === 'boolean') options.push(fc.constantFrom('true', 'false', 'yes'))
  return fc.oneof(...options)
}

function queryFor(op: Operation): fc.Arbitrary<[string, string][]> {
  const params = op.parameters.filter((p) => p.in === 'query')
  const entries = params.map((p) =>
    fc.option(
      valueFor(p.schema).map((v): [string, string] => [p.name, v]),
      { nil: undefined },
    ),
  )
  const unknown = fc.option(fc.tuple(fc.constantFrom('bogus', 'limit[]', '__proto__', 'fields'), text), {
    nil: undefined,
    freq: 4,
  })
  return fc
    .tuple(fc.tuple(...entries), unknown)
    .map(([known, extra]) => [...known, ...(extra ? [extra] : [])].filter((e) => e !== undefined))
}

/** A JSON value shaped by the schema (known keys, plausible and hostile values), to get past validation. */
function shapedBy(schema: JsonSchema | undefined, depth: number): fc.Arbitrary<unknown> {
  const anything = fc.jsonValue({ maxDepth: 1 })
  if (!schema || depth > 3) return fc.oneof(anything, text)
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => shapedBy(s, depth + 1)))
  if (schema.enum && schema.enum.length > 0) return fc.oneof(fc.constantFrom(...schema.enum), text)
  const props = Object.entries(schema.properties ?? {})
  if (props.length > 0) {
    const record = Object.fromEntries(props.map(([k, v]) => [k, shapedBy(v, depth + 1)]))
    return fc.oneof(
      { weight: 4, arbitrary: fc.record(record, { requiredKeys: [] }) },
      { weight: 1, arbitrary: anything },
    )
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  if (type === 'array') return fc.array(shapedBy(schema.items, depth + 1), { maxLength: 3 })
  if (type === 'integer' || type === 'number')
    return fc.oneof(fc.integer(), fc.constantFrom(1e308, -1, Number.MAX_SAFE_INTEGER), text)
  if (type === 'boolean') return fc.oneof(fc.boolean(), text)
  return fc.oneof(text, anything)
}

function bodyFor(op: Operation): fc.Arbitrary<string | undefined> {
  if (!['POST', 'PUT', 'PATCH'].includes(op.method)) return fc.constant(undefined)
  return fc.oneof(
    { weight: 4, arbitrary: shapedBy(op.body, 0).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', 'null', '[]', '{"__proto__":{"x":1}}', '"x"'),
    },
  )
}

/** Our error shape, as opposed to a provider's body passed through. */
function isOurError(answer: string): boolean {
  try {
    const body = JSON.parse(answer) as { statusCode?: unknown; error?: unknown }
    return typeof body.statusCode === 'number' && typeof body.error === 'string'
  } catch {
    return false
  }
}

interface OpenApiDoc {
  readonly paths: Record<string, Record<string, unknown>>
  readonly components?: { schemas?: Record<string, JsonSchema> }
}

/** The schema with every `$ref` replaced by what it names (cycles stop at a depth). */
function deref(schema: JsonSchema | undefined, doc: OpenApiDoc, depth = 0): JsonSchema | undefined {
  if (!schema || depth > 6) return schema
  if (schema.$ref) return deref(doc.components?.schemas?.[schema.$ref.split('/').pop()!], doc, depth + 1)
  return {
    ...schema,
    ...(schema.anyOf ? { anyOf: schema.anyOf.map((s) => deref(s, doc, depth + 1)!) } : {}),
    ...(schema.items ? { items: deref(schema.items, doc, depth + 1)! } : {}),
    ...(schema.properties
      ? {
          properties: Object.fromEntries(
            Object.entries(schema.properties).map(([k, v]) => [k, deref(v, doc, depth + 1)!]),
          ),
        }
      : {}),
  }
}

function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
      const op = raw as {
        parameters?: Parameter[]
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
      }
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        ...(op.requestBody?.content?.['application/json']?.schema
          ? { body: deref(op.requestBody.content['application/json'].schema, doc)! }
          : {}),
      })
    }
  }
  return ops
}

describe('every route under fuzzed input', () => {
  let h: Harness
  let emulator: PosthogEmulator
  let conn: string
  let operations: Operation[]
  const knownIds: string[] = []

  beforeAll(async () => {
    emulator = await startPosthog()
    h = await startHarness('sqlite')
    conn = await connectPosthog(h, emulator)
    const doc = await h.api<OpenApiDoc>('GET', '/openapi.json')
    operations = operationsOf(doc.body)
    // Real ids too, so fuzzed input reaches the code behind the lookups.
    for (const object of ['event', 'visitor', 'property', 'session']) {
      const listed = await h.api<{ id: string }[]>('GET', `/analytics/${conn}/${object}`, {
        query: { limit: 2 },
      })
      if (Array.isArray(listed.body)) knownIds.push(...listed.body.map((r) => r.id))
    }
    const webhook = await h.api<{ id: string }>('POST', '/unified/webhook', {
      body: {
        connection_id: conn,
        object_type: 'analytics_event',
        event: 'created',
        hook_url: 'http://127.0.0.1:9/hook',
        interval: 60,
      },
    })
    if (webhook.body.id) knownIds.push(webhook.body.id)
    knownIds.push(conn, h.workspaceId)
  })
  afterAll(async () => {
    await h?.close()
    await emulator?.close()
  })

  it('finds the routes to fuzz in the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(30)
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['GET /analytics/{connection_id}/event', 'PATCH /unified/connection/{id}']),
    )
  })

  it('answers every route with a bounded, non-5xx, JSON-described status', async () => {
    const failures: string[] = []
    for (const op of operations) {
      // A removal or change of the fuzzing's own connection would only make later runs dull, not wrong.
      const connectionIds =
        op.method === 'GET' ? fc.oneof(fc.constant(conn), text) : fc.oneof(text, fc.constant(conn))
      const pathParams = op.parameters.filter((p) => p.in === 'path')
      const pathArb = fc.tuple(
        ...pathParams.map((p) =>
          (p.name === 'connection_id'
            ? connectionIds
            : fc.oneof(valueFor(p.schema), fc.constantFrom(...knownIds))
          ).map((v) => [p.name, v] as const),
        ),
      )
      await fc.assert(
        fc.asyncProperty(pathArb, queryFor(op), bodyFor(op), async (params, query, body) => {
          let path = op.path
          for (const [name, value] of params) {
            const encoded = encodeURIComponent(value)
            path = path.replace(`{${name}}`, encoded || '%20')
          }
          const qs = new URLSearchParams(query).toString()
          const url = `${h.url}${path}${qs ? `?${qs}` : ''}`
          const res = await request(url, {
            method: op.method as 'GET',
            headers: {
              authorization: `Bearer ${h.apiKey}`,
              ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            },
            body,
            headersTimeout: 15_000,
            bodyTimeout: 15_000,
          })
          const answer = await res.body.text()
          const where = `${op.method} ${path}${qs ? `?${qs}` : ''} body=${body?.slice(0, 200)}`
          const status = res.statusCode
          if (process.env.FUZZ_DEBUG) console.log('FUZZ', status, op.method, op.path, body?.slice(0, 120))
          // Passthrough answers with the provider's own status and body; only our own errors are judged.
          if (op.path.startsWith('/passthrough/') && !isOurError(answer)) return
          if (status >= 500 && !ALLOWED_5XX.has(status)) {
            failures.push(`${status} ${where}: ${answer.slice(0, 300)}`)
            return
          }
          if (status >= 400) {
            let message: unknown
            try {
              // JSON-RPC (the MCP endpoint) nests it: {"error": {"code", "message"}}.
              const parsed = JSON.parse(answer) as { message?: unknown; error?: { message?: unknown } }
              message = parsed.message ?? parsed.error?.message
            } catch {
              failures.push(`${status} without JSON ${where}: ${answer.slice(0, 200)}`)
              return
            }
            if (typeof message !== 'string' || message === '')
              failures.push(`${status} without a message ${where}`)
            else if (STACK_TRACE.test(message)) failures.push(`${status} with a stack trace ${where}`)
          }
        }),
        { numRuns: RUNS_PER_ROUTE, seed: Number(process.env.FUZZ_SEED ?? 42) },
      )
    }
    expect(failures.slice(0, 40)).toEqual([])
  }, 600_000)

  it('answers every query parameter of every read given twice with a 4xx naming it, or as given once', async () => {
    // A repeated parameter arrives as an array, which reached code that expected text and answered 500
    // (the embeddable component's wid, the tool list's type).
    const failures: string[] = []
    const routes = operations
      .filter((op) => op.method === 'GET')
      .map((op) => ({
        path: op.path,
        query: op.parameters.filter((p) => p.in === 'query').map((p) => p.name),
        json: true,
      }))
    // Routes the OpenAPI document leaves out, with the parameters they read; the callback answers pages.
    routes.push(
      {
        path: '/docs/unified.js',
        query: ['wid', 'did', 'env', 'cat', 'redirect', 'success_redirect'],
        json: true,
      },
      { path: '/tools', query: ['type', 'connection', 'permissions'], json: true },
      { path: '/unified/integration/oauth/callback', query: ['state', 'code', 'error'], json: false },
    )
    for (const route of routes) {
      const path = route.path
        .replace('{connection_id}', conn)
        .replace(/\{[a-z_]+\}/g, encodeURIComponent(knownIds[0] ?? 'x'))
      for (const name of route.query) {
        const once = new URLSearchParams(name === 'wid' ? { wid: h.workspaceId, did: 'el' } : { [name]: '1' })
        const twice = new URLSearchParams(once)
        twice.append(name, name === 'wid' ? h.workspaceId : '2')
        const res = await request(`${h.url}${path}?${twice}`, {
          headers: { authorization: `Bearer ${h.apiKey}` },
          headersTimeout: 15_000,
          bodyTimeout: 15_000,
        })
        const answer = await res.body.text()
        const where = `GET ${path}?${twice}`
        if (res.statusCode >= 500 && !ALLOWED_5XX.has(res.statusCode))
          failures.push(`${res.statusCode} ${where}: ${answer.slice(0, 200)}`)
        else if (route.json && res.statusCode >= 400 && !isOurError(answer))
          failures.push(`${res.statusCode} without a JSON message ${where}: ${answer.slice(0, 200)}`)
      }
    }
    expect(failures).toEqual([])
  }, 300_000)
})
