/**
 * Instructions per request: a target process run under valgrind's callgrind, which counts the machine
 * instructions the process executes (every thread of it: the event loop, the API-call log's thread, V8's
 * compiler and collector threads), whatever else the machine is doing. CPU time per request moved by up to
 * 25 % between rounds on this shared machine, and twice as much between runs; Unigate's instructions per
 * request repeated within 2 % between rounds (BENCHMARKS.md, twenty-sixth round), so two builds can be told
 * apart by a few percent. A small baseline's count moves more (7 % for the undici proxy, 31 % for the minimal
 * gateway), as a few costly collections fall in one window or the next. It leaves out what the kernel does
 * for the process (its socket writes, waking its threads) and how fast the machine runs the instructions (a
 * cache miss counts as one): it measures the process's own work, not its speed.
 *
 * Used by bench/ab.ts with AB_INSTRUCTIONS=<requests>; valgrind comes from Debian's package (`valgrind`).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import autocannon from 'autocannon'
import { CONNECTIONS, type LoadTarget, requestsOf } from './load.js'

const execFileAsync = promisify(execFile)

/**
 * valgrind's gdbserver, which callgrind_control talks to, names its pipes after LOGNAME and HOST from the
 * process's environment, and callgrind_control looks for them by its own: both are given these (Unigate reads
 * HOST as its listening address, so it is the one that address would be anyway).
 */
export const CALLGRIND_ENV = { LOGNAME: 'unigate-bench', HOST: '127.0.0.1' }

const callgrindControl = (...args: string[]) =>
  execFileAsync('callgrind_control', args, { env: { PATH: process.env.PATH ?? '', ...CALLGRIND_ENV } })

/** Where every callgrind process of this run writes its counts: `<pid>.<n>`, one file per dump. */
const OUT_DIR = mkdtempSync(join(tmpdir(), 'unigate-callgrind-'))
process.once('exit', () => rmSync(OUT_DIR, { recursive: true, force: true }))

/** Whether valgrind is on this machine (Debian's `valgrind` package). */
export function valgrindPresent(): boolean {
  return existsSync('/usr/bin/valgrind') && existsSync('/usr/bin/callgrind_control')
}

/**
 * The command line that runs `command args` under callgrind, counting instructions only: no cache
 * simulation, no per-instruction detail. `--smc-check=all-non-file` because V8 writes the machine code it
 * runs (its JIT) into anonymous memory, which valgrind must watch for changes.
 */
export function underCallgrind(command: string, args: readonly string[]): [string, string[]] {
  return [
    'valgrind',
    [
      '--tool=callgrind',
      '--smc-check=all-non-file',
      '--cache-sim=no',
      '--dump-instr=no',
      '--dump-line=no',
      `--callgrind-out-file=${join(OUT_DIR, '%p')}`,
      command,
      ...args,
    ],
  ]
}

/** A process under callgrind starts tens of times slower than on its own: how long to wait for it. */
export const CALLGRIND_START_TIMEOUT_MS = 240_000

/** The instructions a process under callgrind executed since it was last zeroed: it dumps them, read back. */
async function dumpedInstructions(pid: number): Promise<number> {
  const before = new Set(readdirSync(OUT_DIR))
  const { stdout } = await callgrindControl('--dump', String(pid))
  // A dump is `<id>.<n>`; the id is the process's, or (seen here) its thread's that took the command, so the
  // dump is found as the one new numbered file: only this process is dumping.
  const dumped = () => readdirSync(OUT_DIR).find((name) => /\.\d+$/.test(name) && !before.has(name))
  // callgrind_control returns once the process took the command; the file may follow a moment later.
  for (let wait = 0; !dumped() && wait < 100; wait++) await new Promise((r) => setTimeout(r, 100))
  const file = dumped()
  if (!file) {
    throw new Error(
      `callgrind wrote no dump for process ${pid} (${readdirSync(OUT_DIR).join(', ')}): ${stdout}`,
    )
  }
  const totals = /^totals:\s+(\d+)/m.exec(readFileSync(join(OUT_DIR, file), 'utf8'))
  if (!totals) throw new Error(`callgrind's dump ${file} has no totals line`)
  return Number(totals[1])
}

export interface InstructionCount {
  readonly name: string
  /** Instructions the process executed per answered request over the measured requests. */
  readonly perRequest: number
  readonly requests: number
  readonly failures: number
}

/**
 * Sends `warmUp` requests (so the JIT has compiled the hot path), zeroes the counters, sends `requests` more
 * at the bench's concurrency, and answers the instructions executed per answered request.
 */
export async function instructionsPerRequest(
  target: LoadTarget,
  warmUp: number,
  requests: number,
): Promise<InstructionCount> {
  if (target.pid === undefined) throw new Error(`${target.name}: no process to count`)
  console.error(`[bench]   ${target.name}`)
  if (warmUp > 0) {
    await autocannon({ ...requestsOf(target), connections: CONNECTIONS, amount: warmUp, timeout: 60 })
  }
  await callgrindControl('--zero', String(target.pid))
  const result = await autocannon({
    ...requestsOf(target),
    connections: CONNECTIONS,
    amount: requests,
    timeout: 60,
  })
  const instructions = await dumpedInstructions(target.pid)
  const answered = result.requests.total
  return {
    name: target.name,
    perRequest: instructions / answered,
    requests: answered,
    failures: result.non2xx + result.errors,
  }
}
