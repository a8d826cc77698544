/**
 * `npm run bench`: every benchmark, each a ratio against a baseline measured in the same run. Builds the
 * server first (the server under test is the compiled `node dist/main.js`), prints the results, and writes
 * them into BENCHMARKS.md between the `bench:results` markers with the command that produced them.
 * BENCH_DURATION_S (default 10), BENCH_CONNECTIONS (32), BENCH_WARMUP_S (2) tune the load.
 */
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { benchCrmList } from './crm-list.js'
import { withFreshDatabase } from './fresh-database.js'
import { benchGateway, only, type Section } from './gateway.js'
import { CONNECTIONS, DURATION_S, type LoadResult, ROUNDS, table } from './load.js'
import { ROOT } from './processes.js'
import { RESULT_MARKER } from './webhook-deliveries.js'

console.error('[bench] npm run build…')
execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })

/**
 * The webhook benchmark (Unigate's job runner in the benchmark's own process, the receiver in another) runs
 * in a process of its own per store, so whatever it leaves behind (a pool the dropped database cuts off)
 * cannot end this run and lose the other results.
 */
async function webhookDeliveriesInChild(
  databaseUrl?: string,
): Promise<{ rows: LoadResult[]; summary: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/webhook-deliveries.ts', '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString()
  })
  await new Promise((resolve) => child.once('exit', resolve))
  const line = output.split('\n').find((l) => l.startsWith(RESULT_MARKER))
  if (!line) throw new Error(`the webhook benchmark printed no result:\n${output.slice(-2000)}`)
  return JSON.parse(line.slice(RESULT_MARKER.length)) as { rows: LoadResult[]; summary: string }
}

const sections: Section[] = []
console.error('[bench] gateway: unified list, passthrough, start-up, scale-out…')
sections.push(...(await benchGateway()))
if (only('crm')) {
  console.error('[bench] unified CRM list (HubSpot)…')
  sections.push(await benchCrmList())
}
if (only('webhooks')) {
  console.error('[bench] signed webhook deliveries, SQLite…')
  const sqlite = await webhookDeliveriesInChild()
  console.error('[bench] signed webhook deliveries, PostgreSQL…')
  const postgres = await withFreshDatabase((url) => webhookDeliveriesInChild(url))
  sections.push({
    title:
      'signed webhook deliveries (job runner in-process, receiver in its own process, target >= 5,000 signed deliveries/s on each store)',
    rows: [...sqlite.rows, ...('result' in postgres ? postgres.result.rows : [])],
    lines: [
      `SQLite: ${sqlite.summary}`,
      'result' in postgres
        ? `PostgreSQL: ${postgres.result.summary}`
        : `PostgreSQL: skipped, ${postgres.unreachable}`,
    ],
  })
}

const env = [
  'BENCH_DURATION_S',
  'BENCH_CONNECTIONS',
  'BENCH_WARMUP_S',
  'BENCH_DATABASE_URL',
  'BENCH_ONLY',
  'BENCH_ROUNDS',
]
  .filter((n) => process.env[n])
  .map((n) => `${n}=${process.env[n]} `)
  .join('')
const heading = `## ${new Date().toISOString().slice(0, 10)}, \`${env}npm run bench\` (node ${process.version}, ${availableParallelism()} cores, ${DURATION_S} s per target after warm-up, best of ${ROUNDS} alternating rounds, ${CONNECTIONS} connections)`
const body = sections
  .map(
    (s) =>
      `### ${s.title}\n\n${s.rows.length > 0 ? `${table(s.rows)}\n\n` : ''}${s.lines.map((l) => `- ${l}`).join('\n')}`,
  )
  .join('\n\n')
const report = `${heading}\n\n${body}\n`
console.log(report)

const file = join(ROOT, 'BENCHMARKS.md')
const START = '<!-- bench:results:start -->'
const END = '<!-- bench:results:end -->'
const current = readFileSync(file, 'utf8')
const from = current.indexOf(START)
const to = current.indexOf(END)
if (from !== -1 && to > from) {
  writeFileSync(file, `${current.slice(0, from + START.length)}\n${report}${current.slice(to)}`)
  console.error('[bench] results written to BENCHMARKS.md')
}
process.exit(0)
