import { type ChildProcess, execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserGet } from './support/auth-server.js'
import { decide } from './support/google-oauth.js'
import { decideAtPosthog } from './support/posthog-oauth.js'
import { spawnTestProcess, stopGroup } from './support/process-group.js'
import { freePort } from './support/server-process.js'

const ROOT = join(import.meta.dirname, '..')
const run = promisify(execFile)

/** The shell commands of the README's tour: its first `sh` block, continuation lines joined. */
function readmeTourCommands(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const tour = readme.slice(readme.indexOf('## A short tour'))
  const block = /```sh\n([\s\S]*?)```/.exec(tour)![1]!
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
}

/**
 * `npm run demo` as a new user meets it: started as its own process, the `export` lines it prints pasted
 * into a shell, then every command it prints and every command of the README's tour run as printed.
 */
describe('the first run: npm run demo and the README tour, as printed', () => {
  let demo: ChildProcess
  let output = ''
  let port: number
  let exports: string[] = []

  beforeAll(async () => {
    port = await freePort()
    // Its own process group, so the tsx loader and everything it started are stopped together.
    demo = spawnTestProcess(process.execPath, ['--import', 'tsx', 'demo/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-demo-')),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    demo.stdout?.on('data', (c: Buffer) => {
      output += c.toString()
    })
    demo.stderr?.on('data', (c: Buffer) => {
      output += c.toString()
    })
    const deadline = Date.now() + 60_000
    while (!output.includes('Press Ctrl+C to stop.')) {
      if (demo.exitCode !== null) throw new Error(`the demo exited:\n${output}`)
      if (Date.now() > deadline) throw new Error(`the demo did not start:\n${output}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    exports = output.split('\n').filter((l) => l.startsWith('export '))
  }, 90_000)

  afterAll(async () => {
    if (demo) await stopGroup(demo, 'SIGTERM')
  })

  /** A unified read (`/analytics/…`) answers records: the demo's data lies in the windows its commands cover. */
  function expectRecordsFromRead(command: string, answer: string): void {
    if (!/\/analytics\//.test(command)) return
    const body = JSON.parse(answer) as unknown
    expect(Array.isArray(body) ? body.length : 1, `no records from: ${command}`).toBeGreaterThan(0)
  }

  /** Runs one printed command in bash after the printed exports; curl fails on any non-2xx answer. */
  async function shell(command: string, prelude: readonly string[] = []): Promise<string> {
    const script = [
      'set -euo pipefail',
      ...exports,
      ...prelude,
      'curl() { command curl --fail-with-body --max-time 30 "$@"; }',
      command.replaceAll('localhost:8080', `127.0.0.1:${port}`),
    ].join('\n')
    try {
      const { stdout } = await run('bash', ['-c', script], { cwd: ROOT })
      return stdout
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string }
      throw new Error(`failed: ${command}\n${e.stdout ?? ''}${e.stderr ?? ''}`)
    }
  }

  it('prints export UNIGATE_KEY once, and short commands that use it', () => {
    expect(exports.filter((l) => l.startsWith('export UNIGATE_KEY='))).toHaveLength(1)
    const key = /export UNIGATE_KEY='([^']+)'/.exec(output)![1]!
    // The key itself stands only on its export line.
    expect(output.split(key).length - 1).toBe(1)
    expect(output).toMatch(/no other internal address/)
  })

  it('lets outbound requests reach its emulators, and no other local address', async () => {
    // This server itself, as a connection's address: with all of loopback allowed, this verified (the key
    // as the token, relayed by passthrough to the emulated PostHog), and so would any other local service.
    const create = (apiUrl: string) =>
      shell(
        `command curl -s -H "authorization: Bearer $UNIGATE_KEY" -H 'content-type: application/json' localhost:8080/unified/connection -d '{"integration_type":"posthog","auth":{"api_url":"'"${apiUrl}"'","token":"'"$UNIGATE_KEY"'"}}'`,
      )
    const self = JSON.parse(await create(`http://127.0.0.1:${port}/passthrough/$CONN`))
    expect(self.statusCode).toBe(400)
    expect(self.message).toContain(`127.0.0.1 is in a loopback range`)
    const emulator = JSON.parse(await create('$POSTHOG_URL'))
    expect(emulator.statusCode).toBe(400)
    expect(emulator.message).toContain('PostHog rejected the credentials')
  })

  it('every command the demo prints works as printed', async () => {
    const commands = output.split('\n').filter((l) => l.startsWith('curl '))
    expect(commands.length).toBeGreaterThan(15)
    for (const command of commands) {
      const answer = await shell(command)
      if (command.includes('/unified/integration/auth/'))
        expect(answer).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//)
      else expect(() => JSON.parse(answer)).not.toThrow()
      expectRecordsFromRead(command, answer)
    }
  }, 120_000)

  it('every command of the README tour works against the demo', async () => {
    const commands = readmeTourCommands()
    expect(commands.length).toBeGreaterThanOrEqual(8)
    // Variables the tour sets (H=…) carry into the commands after them, as in one shell session.
    const assignments: string[] = []
    for (const command of commands) {
      if (/^[A-Za-z_]\w*=/.test(command)) assignments.push(command)
      else expectRecordsFromRead(command, await shell(command, assignments))
    }
  }, 120_000)

  it('runs the OAuth authorization of the emulated Google and PostHog end to end', async () => {
    for (const type of ['googleanalytics', 'posthog']) {
      const start = await shell(
        `curl -s "localhost:8080/unified/integration/auth/$UNIGATE_WORKSPACE/${type}?success_redirect=http://localhost/connected"`,
      )
      const callback =
        type === 'posthog'
          ? await decideAtPosthog(start.trim(), 'allow')
          : await decide(start.trim(), 'allow')
      const back = await browserGet(callback)
      expect([302, 303]).toContain(back.status)
      const landed = new URL(back.location!)
      expect(landed.origin + landed.pathname).toBe('http://localhost/connected')
      const id = landed.searchParams.get('id')!
      expect(id).toMatch(/^cn_na_/)
      const listed = JSON.parse(
        await shell(
          `curl -s -H "authorization: Bearer $UNIGATE_KEY" localhost:8080/unified/connection/${id}`,
        ),
      )
      expect(listed).toMatchObject({ id, integration_type: type })
    }
  }, 60_000)
})
