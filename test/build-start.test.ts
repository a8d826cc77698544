import { type ChildProcess, execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCommandArgs } from '../bench/processes.js'
import {
  DEFAULT_DATA_UNTIL,
  DEFAULT_PERSONAL_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../emulators/posthog/index.js'
import { loadConfig } from '../src/config.js'
import { createServices } from '../src/services.js'
import { connectMcp } from './support/mcp-client.js'
import { spawnTestProcess, stopGroup } from './support/process-group.js'
import { freePort } from './support/server-process.js'

const ROOT = join(import.meta.dirname, '..')
const run = promisify(execFile)

/**
 * `npm start` runs the compiled server with plain node: `npm run build` (scripts/build.ts) must type-check
 * and bundle it, and the bundle must serve on its own, including what it loads only on first use (the
 * documentation packages, the MCP SDK and our chunk around it, undici for the first provider call).
 */
describe('the compiled server', () => {
  let server: ChildProcess | undefined
  let url = ''
  let apiKey = ''
  let connectionId = ''
  let output = ''
  let posthog: PosthogEmulator | undefined
  let env: Record<string, string> = {}

  beforeAll(async () => {
    await run(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/build.ts'], {
      cwd: ROOT,
    })
    posthog = await startPosthogEmulator({ size: { events: 20 } })
    env = {
      UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-build-')),
      UNIGATE_MASTER_KEY: randomBytes(32).toString('base64'),
      UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
    }
    const services = await createServices(loadConfig(env), { background: false })
    try {
      const { workspace } = await services.workspaces.create('build')
      apiKey = (await services.apiKeys.issue(workspace.id)).apiKey
      const connection = await services.connections.create(workspace.id, {
        integration_type: 'posthog',
        auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: posthog.url },
      })
      connectionId = connection.id
    } finally {
      await services.close()
    }
    const port = await freePort()
    url = `http://127.0.0.1:${port}`
    // As npm start runs it: node, its options (--no-memory-reducer), dist/main.js.
    server = spawnTestProcess(process.execPath, startCommandArgs(), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    server.stderr?.on('data', (c: Buffer) => {
      output += c.toString()
    })
    server.stdout?.on('data', (c: Buffer) => {
      output += c.toString()
    })
    const deadline = Date.now() + 30_000
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the compiled server exited:\n${output}`)
      try {
        const res = await request(`${url}/health`)
        expect(res.statusCode).toBe(200)
        await res.body.dump()
        break
      } catch (err) {
        if (Date.now() > deadline) throw err
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  }, 240_000)

  afterAll(async () => {
    if (server) await stopGroup(server, 'SIGTERM')
    await posthog?.close()
  })

  it('serves /health and the OpenAPI document from dist/main.js without tsx', async () => {
    const health = await request(`${url}/health`)
    expect(health.statusCode).toBe(200)
    expect(await health.body.json()).toEqual({ status: 'ok' })
    const spec = await request(`${url}/openapi.json`)
    expect(spec.statusCode).toBe(200)
    expect(((await spec.body.json()) as { openapi: string }).openapi).toMatch(/^3\.1/)
  })

  it('serves the /docs page and its static files, which stay in their own package', async () => {
    const page = await request(`${url}/docs`)
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    await page.body.dump()
    const css = await request(`${url}/docs/static/index.css`)
    expect(css.statusCode).toBe(200)
    expect(css.headers['content-type']).toMatch(/text\/css/)
    await css.body.dump()
  })

  it('answers MCP and plain tool calls, loaded on first use', async () => {
    const client = await connectMcp(url, { apiKey })
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('list_unified_connections')
    const listed = await client.callTool({ name: 'list_unified_connections', arguments: {} })
    expect(listed.isError).toBeFalsy()
    await client.close()
    const call = await request(`${url}/tools/list_unified_connections/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(call.statusCode).toBe(200)
    await call.body.dump()
  })

  it('calls the provider: a unified list and a passthrough reach the PostHog emulator', async () => {
    const auth = { authorization: `Bearer ${apiKey}` }
    const window = `start_gte=${new Date(Date.parse(DEFAULT_DATA_UNTIL) - 30 * 86_400_000).toISOString()}&end_lt=${DEFAULT_DATA_UNTIL}`
    const list = await request(`${url}/analytics/${connectionId}/event?limit=5&${window}`, { headers: auth })
    expect(list.statusCode).toBe(200)
    expect(Array.isArray(await list.body.json())).toBe(true)
    const pass = await request(`${url}/passthrough/${connectionId}/api/projects/1/persons/?limit=2`, {
      headers: auth,
    })
    expect(pass.statusCode).toBe(200)
    const persons = ((await pass.body.json()) as { results: unknown[] }).results
    expect(persons.length).toBeGreaterThan(0)
    expect(persons.length).toBeLessThanOrEqual(2)
    // Both are in the API-call log, written by its insert thread, which the bundle starts from a file of its
    // own (src/store/insert-thread.cjs, copied by the build): without it the server would write them itself
    // and say so in its log.
    const calls = await request(`${url}/unified/apicall?connection_id=${connectionId}`, { headers: auth })
    expect(calls.statusCode).toBe(200)
    const names = ((await calls.body.json()) as { name: string }[]).map((c) => c.name)
    expect(names).toEqual(expect.arrayContaining(['listAnalyticsEvents', 'listPassthroughs']))
    expect(output).not.toMatch(/insert thread|server thread/)
  })

  it('answers bad input with a 4xx JSON error naming the parameter', async () => {
    const res = await request(`${url}/analytics/nope/event?limit=abc`, {
      headers: { authorization: `Bearer ${apiKey}` },
    })
    expect(res.statusCode).toBe(400)
    expect(((await res.body.json()) as { message: string }).message).toMatch(/limit/)
    expect(output).not.toContain(apiKey)
  })

  it('runs the CLI from the build where there is no src/ (the container image) and its key works', async () => {
    // The image's layout: bin/, dist/ and node_modules, without src/ (Dockerfile).
    const image = mkdtempSync(join(tmpdir(), 'unigate-image-'))
    mkdirSync(join(image, 'bin'))
    cpSync(join(ROOT, 'bin/unigate.js'), join(image, 'bin/unigate.js'))
    cpSync(join(ROOT, 'dist'), join(image, 'dist'), { recursive: true })
    cpSync(join(ROOT, 'package.json'), join(image, 'package.json'))
    symlinkSync(join(ROOT, 'node_modules'), join(image, 'node_modules'))
    const { stdout } = await run(
      process.execPath,
      [join(image, 'bin/unigate.js'), 'workspace', 'create', '--name', 'cli'],
      {
        cwd: image,
        env: { PATH: process.env.PATH ?? '', ...env },
      },
    )
    const key = (JSON.parse(stdout) as { api_key?: string }).api_key
    expect(key, stdout).toMatch(/^ey/)
    const res = await request(`${url}/unified/connection`, { headers: { authorization: `Bearer ${key}` } })
    expect(res.statusCode).toBe(200)
    expect(await res.body.json()).toEqual([])
  })
})
