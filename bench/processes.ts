/**
 * Processes a benchmark starts: the server under test (`node dist/main.js`), the replay provider and the
 * baselines each run in their own process, so the load generator never shares their event loop.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

export const ROOT = join(import.meta.dirname, '..')

export interface BenchProcess {
  readonly url: string
  readonly port: number
  readonly child: ChildProcess
  /** Spawn to the first 200 from the ready path, in ms. */
  readonly startupMs: number
  /** CPU time (user + system) the process had used when it first answered, in ms. */
  readonly cpuMs: number
  /** Resident set size now, in MB (Linux /proc). */
  rssMb(): number
  stop(): Promise<void>
}

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

const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** Starts a command and resolves once `readyPath` answers 200 (polled every 10 ms). */
export async function startProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { port?: number; readyPath?: string; timeoutMs?: number } = {},
): Promise<BenchProcess> {
  const port = options.port ?? (await freePort())
  const started = performance.now()
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  let output = ''
  child.stdout?.on('data', (c: Buffer) => {
    output += c.toString()
  })
  child.stderr?.on('data', (c: Buffer) => {
    output += c.toString()
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((r) => child.once('exit', () => r()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
    running.delete(child)
  }
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${command} ${args.join(' ')} exited with ${child.exitCode ?? child.signalCode}:\n${output}`,
      )
    }
    try {
      const res = await fetch(`${url}${options.readyPath ?? '/health'}`)
      await res.arrayBuffer()
      if (res.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`${command} did not come up:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  const startupMs = performance.now() - started
  const cpuMs = cpuTimeMs(child.pid)
  return {
    url,
    port,
    child,
    startupMs,
    cpuMs,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN)
      return kb / 1024
    },
    stop,
  }
}

/**
 * utime + stime of a process from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms); with
 * `children`, plus those of its live child processes (nginx's workers), one level down.
 */
export function cpuTimeMs(pid: number | undefined, options: { children?: boolean } = {}): number {
  return timesMs(pid, options, true)
}

/** utime alone (the process's own code; the kernel's loopback I/O is system time), as cpuTimeMs. */
export function userTimeMs(pid: number | undefined, options: { children?: boolean } = {}): number {
  return timesMs(pid, options, false)
}

/**
 * utime + stime of every live process whose command name is `name` (PostgreSQL's server: the postmaster,
 * the backends of open connections, the WAL writer and the rest), as cpuTimeMs. A process that ends between
 * two readings takes its time with it, so read around a phase whose connections stay open.
 */
export function cpuTimeOfNamedMs(name: string): number {
  let sum = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) sum += timesMs(Number(entry), {}, true)
    } catch {
      // Gone since the listing.
    }
  }
  return sum
}

function timesMs(pid: number | undefined, options: { children?: boolean }, system: boolean): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const own = (Number(fields[11]) + (system ? Number(fields[12]) : 0)) * 10
  if (!options.children) return own
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean)
  return children.reduce((sum, child) => sum + timesMs(Number(child), {}, system), own)
}

/**
 * What `npm start` runs after `node`: its node options and `dist/main.js`, read from package.json so the
 * benchmark measures the server as it is started in production (`--no-memory-reducer`, README "Deployment").
 */
export function startCommandArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  const [command, ...args] = pkg.scripts.start.split(/\s+/)
  if (command !== 'node' || args.at(-1) !== 'dist/main.js')
    throw new Error(`npm start is not "node [options] dist/main.js": ${pkg.scripts.start}`)
  return args
}

/** The compiled server (`dist/main.js`, built by `npm run build`), started as `npm start` does, with the given environment. */
export function startUnigate(env: Record<string, string>, extraNodeArgs: readonly string[] = []) {
  const args = startCommandArgs()
  // The extra options after npm start's own, so that they can undo one (`--memory-reducer`).
  return startProcess(process.execPath, [...args.slice(0, -1), ...extraNodeArgs, ...args.slice(-1)], {
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...env,
  })
}
