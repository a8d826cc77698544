import { fileURLToPath } from 'node:url'
import { spawnTestProcess, stopGroup } from './process-group.js'

export interface ServerProcess {
  readonly url: string
  stop(): Promise<void>
}

/** Starts test/support/auth-server-process.ts in its own Node process (through tsx) and waits for it. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const script = fileURLToPath(new URL('./auth-server-process.ts', import.meta.url))
  const child = spawnTestProcess(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let errors = ''
  child.stderr?.on('data', (d: Buffer) => {
    errors += d.toString()
  })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server process did not start: ${errors}`)), 20_000)
      child.stdout?.on('data', (d: Buffer) => {
        const m = /ready (\S+)/.exec(d.toString())
        if (m?.[1]) {
          clearTimeout(timer)
          resolve(m[1])
        }
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`server process exited with ${code}: ${errors}`))
      })
    })
    return { url, stop: () => stopGroup(child, 'SIGTERM') }
  } catch (err) {
    // A server that did not come up must not outlive the test either.
    await stopGroup(child, 'SIGKILL')
    throw err
  }
}
