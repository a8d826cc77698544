import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = realpathSync(join(import.meta.dirname, '..', '..'))

/**
 * Added to the command line of every server process a test starts, naming this checkout: `.ci/run` looks
 * for it (`pgrep -f`) after the tests and fails if any such process outlived them.
 */
export const TEST_PROCESS_MARKER = `--unigate-test-process=${ROOT}`

/** Every process group started here and not yet known to be gone. */
const groups = new Set<ChildProcess>()

/**
 * Starts a test server in a process group of its own. `tsx` runs the script in a child Node process, so
 * signalling `tsx` alone (SIGKILL above all) would orphan the server; the group takes both.
 */
export function spawnTestProcess(
  command: string,
  args: readonly string[],
  options: SpawnOptions,
): ChildProcess {
  const child = spawn(command, [...args, TEST_PROCESS_MARKER], { ...options, detached: true })
  groups.add(child)
  // The leader's exit does not mean the group is gone (tsx's child may still run), so the group stays
  // listed until it has been killed.
  return child
}

/** Sends the signal to the child's whole process group; false when the group no longer exists. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (child.pid === undefined) return false
  try {
    process.kill(-child.pid, signal)
    return true
  } catch {
    return false
  }
}

/**
 * Stops the child's group with the signal and waits for the child to exit; a group that does not exit within
 * graceMs, and anything left of it afterwards, is killed with SIGKILL.
 */
export async function stopGroup(
  child: ChildProcess,
  signal: NodeJS.Signals,
  graceMs = 10_000,
): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    signalGroup(child, signal)
    let timer: NodeJS.Timeout | undefined
    await Promise.race([exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))])
    clearTimeout(timer)
  }
  signalGroup(child, 'SIGKILL')
  groups.delete(child)
  // The group outlives its leader until its last member is gone: wait, so a restarted server never
  // overlaps the one it replaces.
  const deadline = Date.now() + 10_000
  while (signalGroup(child, 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}

/** Kills every test process group still around and waits until they are gone (afterAll). */
export async function killAllTestProcesses(): Promise<void> {
  await Promise.all([...groups].map((child) => stopGroup(child, 'SIGKILL')))
}

/** The last resort when a test file ends without its afterAll having run: nothing may wait here. */
function killAllNow(): void {
  for (const child of groups) signalGroup(child, 'SIGKILL')
}

process.once('exit', killAllNow)
// Vitest ends its worker processes with SIGTERM, which skips 'exit': kill the groups, then let the
// signal do what it would have done without this listener.
process.once('SIGTERM', function onTerm() {
  killAllNow()
  if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM')
})
