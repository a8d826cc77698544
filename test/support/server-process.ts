import type { ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { killAllTestProcesses, spawnTestProcess, stopGroup } from './process-group.js'

const ROOT = join(import.meta.dirname, '..', '..')

export interface ServerProcess {
  readonly url: string
  readonly child: ChildProcess
  /** stderr and stdout, for a failing test's message. */
  output(): string
  /** Signals the server's whole process group and waits until it is gone (SIGKILL after a grace period). */
  kill(signal: NodeJS.Signals): Promise<void>
}

/** A free TCP port on 127.0.0.1 (bound, then released for the child to take). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Kills every server a test started (and the Node process tsx runs it in), also after a failing test. */
export function killAllServerProcesses(): Promise<void> {
  return killAllTestProcesses()
}

/** Starts `tsx src/main.ts` as its own process with the given environment; resolves once /health answers. */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ServerProcess> {
  const port = await freePort()
  const child = spawnTestProcess(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString()
  })
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString()
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stopGroup(child, 'SIGKILL')
      throw new Error(`server process exited with ${child.exitCode ?? child.signalCode}:\n${output}`)
    }
    try {
      const res = await fetch(`${url}/health`)
      if (res.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopGroup(child, 'SIGKILL')
      throw new Error(`server process did not come up:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    child,
    output: () => output,
    kill: (signal) => stopGroup(child, signal),
  }
}

/** A JSON call to a server process with the workspace key. */
export async function callApi<T>(
  url: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T; text: string }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  return {
    status: res.status,
    text,
    body: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T,
  }
}
