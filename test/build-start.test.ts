import { type ChildProcess, execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { spawnTestProcess, stopGroup } from './support/process-group.js'
import { freePort } from './support/server-process.js'

const ROOT = join(import.meta.dirname, '..')
const run = promisify(execFile)

/** `npm start` runs the compiled server with plain node: the build must compile and start on its own. */
describe('the compiled server', () => {
  let server: ChildProcess | undefined

  afterAll(async () => {
    if (server) await stopGroup(server, 'SIGTERM')
  })

  it('builds to dist/ and serves from dist/main.js without tsx', async () => {
    await run(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
      },
    )
    const port = await freePort()
    let output = ''
    server = spawnTestProcess(process.execPath, ['dist/main.js'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-build-')),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    server.stderr?.on('data', (c: Buffer) => {
      output += c.toString()
    })
    const deadline = Date.now() + 30_000
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the compiled server exited:\n${output}`)
      try {
        const res = await request(`http://127.0.0.1:${port}/health`)
        expect(res.statusCode).toBe(200)
        await res.body.dump()
        break
      } catch (err) {
        if (Date.now() > deadline) throw err
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    const spec = await request(`http://127.0.0.1:${port}/openapi.json`)
    expect(spec.statusCode).toBe(200)
    expect(((await spec.body.json()) as { openapi: string }).openapi).toMatch(/^3\.1/)
  }, 180_000)
})
