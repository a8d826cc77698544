/**
 * `npx tsx bench/api-call-log-thread.ts`: what writing the API-call log costs the server's event loop on the
 * embedded store, with the batches inserted in the server's thread (`bulkInserter`, as before the insert
 * thread) and handed to the insert thread (`threadedInserter`), alternating in one run on one store file.
 * Each call is what `ApiCallLog.record` and `flush` do with it: an id, a timestamp and the row built in the
 * server's thread, then appended in batches of 200. Measured as the main thread's own CPU time (from
 * /proc/self/task/<pid>/stat, so the insert thread's time is not counted) per call, and as wall time per call,
 * which for the thread includes waiting for its answer (a server goes on serving meanwhile).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { API_CALL_COLUMNS, apiCallRow, type NewApiCall } from '../src/apicalls/api-call.js'
import { newTimeOrderedId } from '../src/crypto/ids.js'
import { bulkInserter, migrateToLatest, openDatabase, threadedInserter } from '../src/store/index.js'

const CALLS = Number(process.env.CALLS ?? 100_000)
const BATCH = 200
const ROUNDS = Number(process.env.ROUNDS ?? 3)

/** This thread's user + system CPU time in µs (clock ticks of 10 ms: a run must take seconds). */
function mainThreadCpuUs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

const call: NewApiCall = {
  workspace_id: 'ws_bench',
  connection_id: 'cn_0123456789abcdef01234567',
  integration_type: 'posthog',
  environment: 'Production',
  type: 'inbound',
  name: 'listAnalyticsEvents',
  method: 'GET',
  path: 'GET /analytics/{connection_id}/event',
  status: 200,
  size: 14_000,
  ip_address: '127.0.0.1',
  user_agent: 'autocannon/8',
  is_billable: true,
  unified_response_time: 12,
}

const dir = mkdtempSync(join(tmpdir(), 'unigate-log-thread-'))
const db = openDatabase({ sqliteFile: join(dir, 'unigate.db') })
await migrateToLatest(db)
const at = '2026-01-01T00:00:00.000Z'
await db
  .insertInto('workspaces')
  .values({
    id: 'ws_bench',
    name: 'bench',
    secret_sealed: 'sealed',
    slow_fields_opt_in: 0,
    allowed_redirect_origins: '[]',
    created_at: at,
    updated_at: at,
  })
  .execute()

const inline = bulkInserter(db, 'api_calls', API_CALL_COLUMNS)
const threaded = threadedInserter(db, 'api_calls', API_CALL_COLUMNS, (err) => {
  throw err
})
const writers = [
  { name: 'inserted in the server thread', append: inline },
  {
    name: 'handed to the insert thread',
    append: (rows: ReturnType<typeof apiCallRow>[]) => threaded.append(rows),
  },
]

const results = new Map<string, { cpu: number; wall: number }[]>()
for (let round = 0; round < ROUNDS; round++) {
  for (const writer of writers) {
    const cpuBefore = mainThreadCpuUs()
    const wallBefore = performance.now()
    for (let done = 0; done < CALLS; done += BATCH) {
      const rows = []
      for (let i = 0; i < BATCH; i++) {
        const now = Date.now()
        rows.push(apiCallRow(newTimeOrderedId('ac', now), new Date(now).toISOString(), call))
      }
      await writer.append(rows)
    }
    const runs = results.get(writer.name) ?? []
    runs.push({
      cpu: (mainThreadCpuUs() - cpuBefore) / CALLS,
      wall: ((performance.now() - wallBefore) * 1000) / CALLS,
    })
    results.set(writer.name, runs)
    await db.deleteFrom('api_calls').execute()
  }
}
await threaded.close()
await db.destroy()
rmSync(dir, { recursive: true, force: true })

const range = (values: number[]) => `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}`
console.log(
  `${CALLS} calls a round, batches of ${BATCH}, ${ROUNDS} alternating rounds, node ${process.version}`,
)
console.log("| the batches are | event loop's CPU µs a call | wall µs a call |")
console.log('| --- | --- | --- |')
for (const [name, runs] of results) {
  console.log(`| ${name} | ${range(runs.map((r) => r.cpu))} | ${range(runs.map((r) => r.wall))} |`)
}
