import autocannon from 'autocannon'
import { cpuTimeMs, userTimeMs } from './processes.js'

export interface LoadResult {
  readonly name: string
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  readonly errors: number
  /**
   * CPU time (user + system) the serving process used per answered request during the measured run, in
   * µs: on a shared machine it moves far less than req/s, since waiting for a core costs no CPU time.
   */
  readonly cpuUsPerRequest?: number
  /** The user-mode part of it (our JavaScript, mostly), without the kernel's loopback I/O. */
  readonly userCpuUsPerRequest?: number
}

/** One request of a spread load: its path (on the target's origin) and headers. */
export interface Ask {
  readonly path: string
  readonly headers: Record<string, string>
}

export interface LoadTarget {
  readonly name: string
  readonly url: string
  /**
   * Requests to send in turn instead of `url`'s path and `headers`, the next one for each request sent
   * whichever connection sends it: consecutive requests, and so the requests in flight, are spread evenly
   * over them.
   */
  readonly spread?: readonly Ask[]
  readonly method?: 'GET' | 'POST'
  readonly headers?: Record<string, string>
  readonly body?: string
  /** The serving process (its child processes count too: nginx's worker); its CPU per request is reported. */
  readonly pid?: number
}

export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10)
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
/** Seconds of unmeasured load first, so every target is measured after its JIT has warmed up. */
export const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2)

/** What autocannon sends for a target: its one request, or each of its `spread` in turn. */
export function requestsOf(target: LoadTarget): autocannon.Options {
  const spread = target.spread
  if (!spread || spread.length === 0) {
    return { url: target.url, method: target.method ?? 'GET', headers: target.headers, body: target.body }
  }
  let next = 0
  return {
    url: target.url,
    requests: [
      {
        method: target.method ?? 'GET',
        setupRequest: (req: autocannon.Request) => {
          const ask = spread[next++ % spread.length]!
          return { ...req, path: ask.path, headers: ask.headers }
        },
      },
    ],
  }
}

/** Drives one target with autocannon for the configured duration and concurrency. */
export async function load(target: LoadTarget, warmUp = true): Promise<LoadResult> {
  console.error(`[bench]   ${target.name}`)
  if (warmUp && WARMUP_S > 0) {
    await autocannon({ ...requestsOf(target), connections: CONNECTIONS, duration: WARMUP_S })
  }
  const cpuBefore = target.pid === undefined ? undefined : cpuTimeMs(target.pid, { children: true })
  const userBefore = target.pid === undefined ? undefined : userTimeMs(target.pid, { children: true })
  const result = await autocannon({ ...requestsOf(target), connections: CONNECTIONS, duration: DURATION_S })
  return {
    name: target.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    ...(cpuBefore !== undefined && result.requests.total > 0
      ? {
          cpuUsPerRequest:
            ((cpuTimeMs(target.pid!, { children: true }) - cpuBefore) * 1000) / result.requests.total,
          userCpuUsPerRequest:
            ((userTimeMs(target.pid!, { children: true }) - userBefore!) * 1000) / result.requests.total,
        }
      : {}),
  }
}

/** BENCH_ROUNDS: how many times each group of targets is measured, alternating; the best round counts. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

/**
 * Measures targets that are compared with each other in alternating rounds (A B C, A B C) and keeps each
 * target's best round: on a shared machine, a burst of someone else's work then costs a round, not a ratio.
 */
export async function compare(targets: readonly LoadTarget[]): Promise<LoadResult[]> {
  const best: (LoadResult | undefined)[] = targets.map(() => undefined)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) {
      const result = await load(target, round === 0)
      const kept = best[i]
      const better = !kept || result.requestsPerSecond > kept.requestsPerSecond ? result : kept
      // Failures are never best-of: every round's count.
      best[i] = {
        ...better,
        non2xx: result.non2xx + (kept?.non2xx ?? 0),
        errors: result.errors + (kept?.errors ?? 0),
      }
    }
  }
  return best as LoadResult[]
}

export function table(rows: readonly LoadResult[]): string {
  const head =
    '| target | req/s | p50 ms | p99 ms | CPU µs/req | non-2xx | errors |\n|---|---|---|---|---|---|---|'
  const lines = rows.map(
    (r) =>
      `| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${r.cpuUsPerRequest?.toFixed(0) ?? '–'} | ${r.non2xx} | ${r.errors} |`,
  )
  return [head, ...lines].join('\n')
}
