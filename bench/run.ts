/**
 * `npm run bench`: every benchmark, each a ratio against a baseline measured in the same run. Builds the
 * server first (the server under test is the compiled `node dist/main.js`), prints the results, and writes
 * them into BENCHMARKS.md between the `bench:results` markers with the command that produced them.
 * BENCH_DURATION_S (default 10), BENCH_CONNECTIONS (32), BENCH_WARMUP_S (2) tune the load.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { withFreshDatabase } from './fresh-database.js'
import { benchGateway, only, type Section } from './gateway.js'
import { CONNECTIONS, DURATION_S, ROUNDS, table } from './load.js'
import { ROOT } from './processes.js'
import { benchWebhookDeliveries } from './webhook-deliveries.js'

console.error('[bench] npm run build…')
execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })

const sections: Section[] = []
console.error('[bench] gateway: unified list, passthrough, start-up, scale-out…')
sections.push(...(await benchGateway()))
if (only('webhooks')) {
  console.error('[bench] signed webhook deliveries, SQLite…')
  const sqlite = await benchWebhookDeliveries()
  console.error('[bench] signed webhook deliveries, PostgreSQL…')
  const postgres = await withFreshDatabase((url) => benchWebhookDeliveries(url))
  sections.push({
    title: 'signed webhook deliveries (in-process, target >= 5,000 signed deliveries/s on each store)',
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
