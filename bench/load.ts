import autocannon from 'autocannon'

export interface LoadResult {
  readonly name: string
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  readonly errors: number
}

export interface LoadTarget {
  readonly name: string
  readonly url: string
  readonly method?: 'GET' | 'POST'
  readonly headers?: Record<string, string>
  readonly body?: string
}

export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10)
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
/** Seconds of unmeasured load first, so every target is measured after its JIT has warmed up. */
export const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2)

/** Drives one target with autocannon for the configured duration and concurrency. */
export async function load(target: LoadTarget): Promise<LoadResult> {
  console.error(`[bench]   ${target.name}`)
  if (WARMUP_S > 0) {
    await autocannon({
      url: target.url,
      method: target.method ?? 'GET',
      headers: target.headers,
      body: target.body,
      connections: CONNECTIONS,
      duration: WARMUP_S,
    })
  }
  const result = await autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers,
    body: target.body,
    connections: CONNECTIONS,
    duration: DURATION_S,
  })
  return {
    name: target.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  }
}

export function table(rows: readonly LoadResult[]): string {
  const head = '| target | req/s | p50 ms | p99 ms | non-2xx | errors |\n|---|---|---|---|---|---|'
  const lines = rows.map(
    (r) =>
      `| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.errors} |`,
  )
  return [head, ...lines].join('\n')
}
