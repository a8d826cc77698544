/**
 * A server that goes quiet after load, then is busy again: passthrough CPU per request on a fresh process,
 * after each of LISTS (default 1) runs of the unified list followed by IDLE_S (default 40) seconds of quiet,
 * and after 20 s more. It showed that V8's memory reducer, which shrinks the heap once a process goes quiet,
 * doubled the CPU of every later request (BENCHMARKS.md, ninth round): `npm start` now runs node with
 * `--no-memory-reducer`, and this runs the server the way `npm start` does. NODE_ARGS adds node options
 * (`--memory-reducer` turns it back on, to compare); PROF=<dir> writes a CPU profile there.
 *
 *   npm run build && BENCH_DURATION_S=10 npx tsx bench/after-idle.ts
 */
import { get, recordPosthog } from './gateway.js'
import { type LoadTarget, load } from './load.js'
import { startUnigate } from './processes.js'

const LISTS = Number(process.env.LISTS ?? 1)
const IDLE_S = Number(process.env.IDLE_S ?? 40)
const nodeArgs = [
  ...(process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}`] : []),
  ...(process.env.NODE_ARGS ? process.env.NODE_ARGS.split(/\s+/) : []),
]

// The provider's answers recorded once, then replayed, as npm run bench does.
const { bench, replay } = await recordPosthog('after-idle', async (b) => {
  const probe = await startUnigate(b.env)
  await get(`${probe.url}${b.listPath}`, b.auth)
  await get(`${probe.url}${b.passPath}`, b.auth)
  await probe.stop()
})
const { env, auth, listPath, passPath } = bench

const server = await startUnigate(env, nodeArgs)
const run = async (name: string, path: string) => {
  const target: LoadTarget = { name, url: `${server.url}${path}`, headers: auth, pid: server.child.pid }
  const r = await load(target)
  console.log(
    `${name}: ${Math.round(r.requestsPerSecond)} req/s, ${r.cpuUsPerRequest?.toFixed(0)} µs CPU/req, p99 ${r.p99Ms} ms, RSS ${Math.round(server.rssMb())} MB`,
  )
}
try {
  await run('passthrough, fresh process', passPath)
  for (let i = 1; i <= LISTS; i++) {
    await run(`unified list, run ${i}`, listPath)
    await new Promise((r) => setTimeout(r, IDLE_S * 1000))
    await run(`passthrough after list run ${i} and ${IDLE_S} s quiet`, passPath)
  }
  await new Promise((r) => setTimeout(r, 20_000))
  await run('passthrough after 20 s more quiet', passPath)
} finally {
  await server.stop()
  await replay.stop()
}
