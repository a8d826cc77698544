/**
 * `npm run sdk-check`: drives the official Unified.to SDK against a running Unigate (the demo, say) and calls
 * every operation each connection's support matrix claims: list, get of a listed record, and where claimed
 * create, get of the created record, update, patch and remove. Prints one line per call and
 * `N passed, N failed`; exits 1 on a failure.
 *
 * The SDK is not a dependency of this project (its licence is proprietary): install it anywhere
 * (`npm install --prefix /tmp/sdk @unified-api/typescript-sdk`) and point `UNIGATE_SDK_DIR` at that folder.
 * `UNIGATE_KEY` is the workspace key the demo prints; `UNIGATE_URL` defaults to http://127.0.0.1:8080;
 * `ONLY=posthog,hubspot` limits the run to some integrations.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { request } from 'undici'
import type { IntegrationSupport } from '../src/integrations/support.js'
import { createBody, SCOPE_SOURCES } from '../test/support/create-bodies.js'

type Rec = Record<string, unknown> & { id?: string }
type Operation = (request: Record<string, unknown>) => Promise<unknown>
type Namespace = Record<string, Operation>

const base = process.env.UNIGATE_URL ?? 'http://127.0.0.1:8080'
const key = process.env.UNIGATE_KEY
const sdkDir = process.env.UNIGATE_SDK_DIR
if (!key || !sdkDir) {
  console.error('set UNIGATE_KEY (the demo prints it) and UNIGATE_SDK_DIR (where the SDK is installed)')
  process.exit(2)
}
const only = process.env.ONLY?.split(',')

const packageDir = join(sdkDir, 'node_modules', '@unified-api', 'typescript-sdk')
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { module?: string }
// The SDK's ES module build (`module` in its package.json).
const entry = join(packageDir, manifest.module ?? 'dist/esm/index.js')
const { UnifiedTo } = (await import(pathToFileURL(entry).href)) as {
  UnifiedTo: new (options: { serverURL: string; security: { jwt: string } }) => Record<string, Namespace>
}
const sdk = new UnifiedTo({ serverURL: base, security: { jwt: key } })

async function getJson<T>(path: string): Promise<T> {
  const res = await request(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })
  return (await res.body.json()) as T
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)
const plural = (s: string) => (s.endsWith('y') ? `${s.slice(0, -1)}ies` : `${s}s`)
/** The SDK's camelCase spelling of a unified snake_case name. */
const camel = (s: string) => s.replace(/_(.)/g, (_, c: string) => c.toUpperCase())
/** The SDK's spelling of a create body: camelCase keys at the top level; `raw` passes as it is. */
const sdkBody = (body: Rec) => Object.fromEntries(Object.entries(body).map(([k, v]) => [camel(k), v]))
/** A record the SDK answered, with its top-level keys back in the API's snake_case. */
const apiRecord = (record: Rec): Rec =>
  Object.fromEntries(
    Object.entries(record).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  )

const lines: string[] = []
let passed = 0
let failed = 0
async function attempt<T>(label: string, call: () => Promise<T>): Promise<T | undefined> {
  try {
    const result = await call()
    passed++
    lines.push(`ok   ${label}`)
    return result
  } catch (error) {
    failed++
    lines.push(`FAIL ${label}: ${(error instanceof Error ? error.message : String(error)).slice(0, 300)}`)
    return undefined
  }
}

const integrations =
  await getJson<{ type: string; support: Record<string, IntegrationSupport> }[]>('/unified/integration')
const connections = await getJson<{ id: string; integration_type: string }[]>('/unified/connection?limit=100')

for (const connection of connections) {
  if (only && !only.includes(connection.integration_type)) continue
  const support = integrations.find((i) => i.type === connection.integration_type)?.support ?? {}
  const listedBy: Record<string, Rec[]> = {}
  for (const [object, matrix] of Object.entries(support)) {
    const [category = '', ...rest] = object.split('_')
    const Object_ = capital(camel(rest.join('_')))
    const ns = sdk[category]
    if (!ns) continue
    // SDK methods are class methods: called on their namespace.
    const op = (verb: string, name: string) => ns[`${verb}${capital(category)}${name}`]?.bind(ns)
    const label = `${connection.integration_type} ${object}`
    const connectionId = connection.id
    const query: Record<string, unknown> = { connectionId, limit: 5 }
    for (const [param, mark] of Object.entries(matrix)) {
      if (!param.startsWith('list_') || mark !== 'supported-required') continue
      const name = param.slice('list_'.length)
      const source = SCOPE_SOURCES[`${category}:${name}`]
      query[camel(name)] = source ? listedBy[source]?.[0]?.id : undefined
    }
    const listed = matrix.methods.list
      ? await attempt(`${label} list`, () => op('list', plural(Object_))!(query) as Promise<Rec[]>)
      : undefined
    if (listed) listedBy[object] = listed
    const first = listed?.[0]
    if (matrix.methods.get && first?.id)
      await attempt(`${label} get`, () => op('get', Object_)!({ connectionId, id: first.id }))
    if (!matrix.methods.create) continue
    const bodyKey = `${category}${Object_}`
    const body = sdkBody(createBody(object, matrix, (listedBy.analytics_property ?? []).map(apiRecord)))
    const created = (await attempt(`${label} create`, () =>
      op('create', Object_)!({ connectionId, [bodyKey]: body }),
    )) as Rec | undefined
    if (!created?.id) continue
    const id = created.id
    if (matrix.methods.get)
      await attempt(`${label} get created`, () => op('get', Object_)!({ connectionId, id }))
    for (const verb of ['update', 'patch'] as const) {
      if (matrix.methods[verb])
        await attempt(`${label} ${verb}`, () => op(verb, Object_)!({ connectionId, id, [bodyKey]: body }))
    }
    if (matrix.methods.remove)
      await attempt(`${label} remove`, () => op('remove', Object_)!({ connectionId, id }))
  }
}

console.log(lines.join('\n'))
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
