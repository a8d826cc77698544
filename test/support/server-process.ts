import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
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

/**
 * The ports the kernel hands out by itself (listen on port 0, and the local end of outgoing connections):
 * Linux's ip_local_port_range, 32768-60999 unless set otherwise.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number)
    if (low && high) return [low, high]
  } catch {
    // Not Linux: its usual range.
  }
  return [32768, 60999]
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/**
 * A TCP port on 127.0.0.1 free right now, for a child process or a server to take a moment later. Picked
 * below the kernel's ephemeral range: a port from `listen(0)` and released could be handed to anything else
 * in that moment (an emulator the demo starts on port 0 before its own server listens, or an outgoing
 * connection's local end), and the child then failed with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange()
  const from = Math.max(1024, low - 12_000)
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from))
    if (await bindable(port)) return port
  }
  throw new Error(`no free port found between ${from} and ${low - 1}`)
}

/** Kills every server process a test started, also after a failing test. */
export function killAllServerProcesses(): Promise<void> {
  return killAllTestProcesses()
}

/** Starts `src/main.ts` (through tsx's loader) as its own process with the given environment; resolves once /health answers. */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<ServerProcess> {
  const port = await freePort()
  // Node itself with tsx's loader, not the `tsx` command: that command runs the program in a child process and
  // relays a signal to it, and when the child does not acknowledge within about 60 ms (a busy loop on a loaded
  // machine) it kills the child with SIGKILL and exits 143, cutting short the graceful stop a test signals.
  const child = spawnTestProcess(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
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
