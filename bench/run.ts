/**
 * `npm run bench`: every benchmark, each a ratio against a baseline measured in the same run.
 * BENCH_DURATION_S and BENCH_CONNECTIONS tune the load; results go to stdout (record them in BENCHMARKS.md).
 */
import { CONNECTIONS, DURATION_S, table } from './load.js'
import { benchUnifiedList } from './unified-list.js'
import { benchWebhookDeliveries } from './webhook-deliveries.js'

const BENCHMARKS = [
  { name: 'unified list vs provider', run: benchUnifiedList },
  { name: 'signed webhook deliveries', run: benchWebhookDeliveries },
]

console.log(
  `# Unigate benchmarks (${DURATION_S}s per target, ${CONNECTIONS} connections, node ${process.version})\n`,
)
for (const bench of BENCHMARKS) {
  console.error(`[bench] ${bench.name}…`)
  const { rows, summary } = await bench.run()
  console.log(`## ${bench.name}\n\n${table(rows)}\n\n${summary}\n`)
}
process.exit(0)
