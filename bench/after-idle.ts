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
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_PERSONAL_API_KEY, startPosthogEmulator } from '../emulators/posthog/index.js'
import { get, LIST_QUERY, PAGE_BYTES, provision, serverEnv } from './gateway.js'
import { type LoadTarget, load } from './load.js'
import { freePort, startUnigate } from './processes.js'
import { startRecorder, startReplay } from './replay.js'

const LISTS = Number(process.env.LISTS ?? 1)
const IDLE_S = Number(process.env.IDLE_S ?? 40)
const nodeArgs = [
  ...(process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF}`] : []),
  ...(process.env.NODE_ARGS ? process.env.NODE_ARGS.split(/\s+/) : []),
]

// Record the provider's answers once (the emulator does its real work), then replay them, as npm run bench does.
const replayPort = await freePort()
const replayUrl = `http://127.0.0.1:${replayPort}`
const env = serverEnv({ UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-after-idle-')) })
const recordings = join(mkdtempSync(join(tmpdir(), 'unigate-after-idle-replay-')), 'recordings.json')
const emulator = await startPosthogEmulator({ seed: 1, size: { events: 100_000 } })
const recorder = await startRecorder(replayPort, emulator.url)
const ws = await provision(env, replayUrl)
const auth = { authorization: `Bearer ${ws.apiKey}` }
const listPath = `/analytics/${ws.connectionId}/event?${LIST_QUERY}`
const sample = await get(`${emulator.url}/api/projects/1/persons/?limit=100`, {
  authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}`,
})
const perPage = Math.max(1, Math.round(PAGE_BYTES / (sample.body.length / 100)))
const passPath = `/passthrough/${ws.connectionId}/api/projects/1/persons/?limit=${perPage}`
const probe = await startUnigate(env)
await get(`${probe.url}${listPath}`, auth)
await get(`${probe.url}${passPath}`, auth)
await probe.stop()
await recorder.close()
await emulator.close()
recorder.save(recordings)
const replay = await startReplay(recordings, replayPort)

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
