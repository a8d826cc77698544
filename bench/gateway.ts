/**
 * Unigate's own cost per call, against baselines in the same run: the provider is a replay of recorded
 * answers (recorded once from the PostHog emulator, then served as bytes), and Unigate, the baselines and
 * the replay each run in their own process, so what differs between two rows is only the gateway.
 *
 * - unified list of 100 events, four fields: Unigate vs a minimal Node gateway (same provider request)
 * - passthrough of a ~40 KB provider page: Unigate vs a bare undici streaming proxy vs nginx (one worker)
 * - start-up (spawn of the server as `npm start` runs it, to the first /health 200) and idle RSS
 * - scale-out: two Unigate processes on PostgreSQL behind nginx vs one (needs nginx and PostgreSQL)
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import {
  DEFAULT_DATA_UNTIL,
  DEFAULT_PERSONAL_API_KEY,
  startPosthogEmulator,
} from '../emulators/posthog/index.js'
import { loadConfig } from '../src/config.js'
import { QUERIES_PER_TEAM } from '../src/integrations/posthog/query-slots.js'
import { createServices } from '../src/services.js'
import { withFreshDatabase } from './fresh-database.js'
import { type Ask, CONNECTIONS, compare, type LoadResult, type LoadTarget } from './load.js'
import { NGINX, startNginx } from './nginx.js'
import { type BenchProcess, freePort, startCommandArgs, startProcess, startUnigate } from './processes.js'
import { loopbackHosts, type Recording, startRecorder, startReplay } from './replay.js'

const FIELDS = 'id,name,event_type,created_at'
/**
 * The list names its window: without `start_gte` the HogQL query would carry "30 days before now", a new
 * text every millisecond that the replay has never recorded. The window is the emulator's last 30 days.
 */
const LIST_WINDOW = `start_gte=${new Date(Date.parse(DEFAULT_DATA_UNTIL) - 30 * 86_400_000).toISOString()}&end_lt=${DEFAULT_DATA_UNTIL}`
export const LIST_QUERY = `limit=100&fields=${FIELDS}&${LIST_WINDOW}`
export const PAGE_BYTES = 40_000
/**
 * BENCH_CPU_PROF=<dir> runs the server under test and the Node baselines with `node --cpu-prof`, each
 * leaving its profile in a folder of its own (`<dir>/unigate`, `<dir>/minimal-gateway`, `<dir>/capped-gateway`,
 * `<dir>/framework-gateway`, `<dir>/undici-proxy`),
 * so Unigate's profile can be read against the least a Node gateway does for the same call.
 */
const CPU_PROF = process.env.BENCH_CPU_PROF
export const profiled = (name: string) =>
  CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, name)}`] : []
/** BENCH_ONLY=list,passthrough,startup,scaleout,crm,webhooks runs only those parts (all by default). */
export const only = (part: string) => {
  const chosen = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
  return !chosen || chosen.includes(part)
}

export interface Section {
  readonly title: string
  readonly rows: LoadResult[]
  readonly lines: string[]
}

export const ratio = (a: LoadResult, b: LoadResult) => a.requestsPerSecond / b.requestsPerSecond
export const fmt = (r: number) => `${r.toFixed(2)}x`
/** The same comparison in CPU per request (baseline / ours), which a busy machine moves far less than req/s. */
export function cpuLine(base: LoadResult, ours: LoadResult): string {
  if (base.cpuUsPerRequest === undefined || ours.cpuUsPerRequest === undefined) return ''
  return `; in CPU per request ${fmt(base.cpuUsPerRequest / ours.cpuUsPerRequest)}`
}

interface Workspace {
  readonly apiKey: string
  readonly connectionId: string
}

/** A workspace, key and connection (PostHog unless told) in the store the server processes will open. */
export async function provision(
  env: Record<string, string>,
  apiUrl: string,
  integration: { type: string; token: string } = POSTHOG,
): Promise<Workspace> {
  return (await provisionEach(env, [apiUrl], integration))[0]!
}

const POSTHOG = { type: 'posthog', token: DEFAULT_PERSONAL_API_KEY }

/** A workspace, key and connection for each provider address, in one opening of the store. */
async function provisionEach(
  env: Record<string, string>,
  apiUrls: readonly string[],
  integration: { type: string; token: string } = POSTHOG,
): Promise<Workspace[]> {
  const services = await createServices(loadConfig(env), { background: false })
  try {
    const made: Workspace[] = []
    for (const [i, apiUrl] of apiUrls.entries()) {
      const { workspace } = await services.workspaces.create(i === 0 ? 'bench' : `bench-${i}`)
      const { apiKey } = await services.apiKeys.issue(workspace.id)
      const connection = await services.connections.create(workspace.id, {
        integration_type: integration.type,
        auth: { token: integration.token, api_url: apiUrl },
      })
      made.push({ apiKey, connectionId: connection.id })
    }
    return made
  } finally {
    await services.close()
  }
}

export async function get(url: string, headers: Record<string, string>) {
  const res = await request(url, { headers })
  const body = Buffer.from(await res.body.arrayBuffer())
  return { status: res.statusCode, body }
}

/** The PostHog workspace the list and passthrough benchmarks read, and the address its replay answers on. */
export interface PosthogBench {
  readonly env: Record<string, string>
  readonly replayPort: number
  readonly replayUrl: string
  readonly auth: Record<string, string>
  readonly listPath: string
  /** A page of persons of about PAGE_BYTES, as PostHog's API path. */
  readonly providerPage: string
  readonly passPath: string
  /**
   * The same list asked by `tenants` other workspaces, each with a connection to a provider host of its own
   * (recordPosthog's `tenants`): what a load spread over many customers asks.
   */
  readonly tenantLists: readonly Ask[]
}

/**
 * The provider of the list and passthrough benchmarks, recorded then replayed: the PostHog emulator does its
 * real work once, through a recording proxy on the replay's port, while `probe` has the servers under test
 * ask the list and the passthrough page (data kept in a fresh store tagged `tag`); from then on a replay
 * serves those bytes, so the emulator's own cost is out of every measurement. Answers the workspace, the
 * HogQL request the list made (what a baseline sends) and the running replay.
 */
export async function recordPosthog(
  tag: string,
  probe: (bench: PosthogBench) => Promise<void>,
  tenants = 0,
): Promise<{ bench: PosthogBench; hogql: Recording; replay: BenchProcess }> {
  const hosts = loopbackHosts(tenants)
  const replayPort = await freePort()
  const replayUrl = `http://127.0.0.1:${replayPort}`
  const env = serverEnv({ UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), `unigate-${tag}-`)) })
  const recordings = join(mkdtempSync(join(tmpdir(), `unigate-${tag}-replay-`)), 'recordings.json')
  const emulator = await startPosthogEmulator({ seed: 1, size: { events: 100_000 } })
  const recorder = await startRecorder(replayPort, emulator.url, hosts)
  let bench: PosthogBench
  try {
    const [ws, ...others] = await provisionEach(
      env,
      hosts.map((host) => `http://${host}:${replayPort}`),
    )
    if (!ws) throw new Error('no workspace provisioned')
    const sample = await get(`${emulator.url}/api/projects/1/persons/?limit=100`, {
      authorization: `Bearer ${DEFAULT_PERSONAL_API_KEY}`,
    })
    const perPerson = sample.body.length / 100
    const providerPage = `/api/projects/1/persons/?limit=${Math.max(1, Math.round(PAGE_BYTES / perPerson))}`
    bench = {
      env,
      replayPort,
      replayUrl,
      auth: { authorization: `Bearer ${ws.apiKey}` },
      listPath: `/analytics/${ws.connectionId}/event?${LIST_QUERY}`,
      providerPage,
      passPath: `/passthrough/${ws.connectionId}${providerPage}`,
      tenantLists: others.map((o) => ({
        path: `/analytics/${o.connectionId}/event?${LIST_QUERY}`,
        headers: { authorization: `Bearer ${o.apiKey}` },
      })),
    }
    await probe(bench)
  } finally {
    await recorder.close()
    await emulator.close()
  }
  const hogql = recorder.recordings.find((r) => r.method === 'POST' && r.url.includes('/query/'))
  if (!hogql) throw new Error('the unified list reached no HogQL query')
  recorder.save(recordings)
  return { bench, hogql, replay: await startReplay(recordings, replayPort, hosts) }
}

export function serverEnv(extra: Record<string, string>): Record<string, string> {
  return {
    UNIGATE_MASTER_KEY: MASTER_KEY,
    // The replay listens on loopback; the whole load goes to one connection, so its lane must not bind.
    UNIGATE_OUTBOUND_ALLOW_ADDRESSES: 'loopback',
    UNIGATE_PROVIDER_CONNECTION_CONCURRENCY: String(CONNECTIONS * 2),
    UNIGATE_PROVIDER_CONNECTION_QUEUE: String(CONNECTIONS * 4),
    ...extra,
  }
}
const MASTER_KEY = randomBytes(32).toString('base64')

const CAPPED_NAME = `minimal Node gateway, at most ${QUERIES_PER_TEAM} queries in flight (PostHog's limit per team)`
/**
 * BENCH_TENANTS (default 16): workspaces whose connections each reach a PostHog host of their own, for the
 * list's row of many tenants. With 16, the 32 connections' requests in flight are two a team on average,
 * below PostHog's 3 concurrent queries per team, as a gateway serving many customers mostly sees them. Each
 * host is a loopback address (127.0.0.2 and on), which Linux routes; where only 127.0.0.1 is one (macOS),
 * BENCH_TENANTS=0 leaves the row out.
 */
export const TENANTS = Number(process.env.BENCH_TENANTS ?? 16)
const TENANTS_NAME = `Unigate, the same list from ${TENANTS} workspaces in turn, each with a connection to a PostHog host of its own`
const FLOOR_NAME = "the same gateway on Fastify and an undici Agent (Unigate's stack, none of its code)"

/** bench/baselines/framework-gateway.mjs: the baseline's work on the framework and dispatcher Unigate uses. */
function startFrameworkGateway(upstream: Record<string, string>): Promise<BenchProcess> {
  return startProcess(
    process.execPath,
    [...profiled('framework-gateway'), 'bench/baselines/framework-gateway.mjs'],
    upstream,
  )
}

/** What the stack costs against the baseline, and what Unigate's own code costs against the stack. */
function floorLine(base: LoadResult, ours: LoadResult, stack: LoadResult): string {
  return `Fastify and an undici Agent alone / the baseline: ${fmt(ratio(stack, base))}${cpuLine(base, stack)}; Unigate / Fastify and an undici Agent alone: ${fmt(ratio(ours, stack))}${cpuLine(stack, ours)}`
}

export async function benchGateway(): Promise<Section[]> {
  const sections: Section[] = []
  const stops: (() => Promise<void>)[] = []
  try {
    // 1. Record: the emulator does its real work once; 2. replay from here on.
    let listProbe = { status: 0, body: Buffer.alloc(0) }
    let passProbe = { status: 0, body: Buffer.alloc(0) }
    const recorded = await recordPosthog(
      'bench',
      async (b) => {
        const probe = await startUnigate(b.env)
        listProbe = await get(`${probe.url}${b.listPath}`, b.auth)
        passProbe = await get(`${probe.url}${b.passPath}`, b.auth)
        for (const ask of b.tenantLists) {
          const tenant = await get(`${probe.url}${ask.path}`, ask.headers)
          if (!tenant.body.equals(listProbe.body))
            throw new Error(`a tenant's list answered ${tenant.status}, not the first workspace's page`)
        }
        await probe.stop()
      },
      TENANTS,
    )
    const { hogql, replay } = recorded
    const { env: sqliteEnv, replayUrl, auth, listPath, passPath, providerPage, tenantLists } = recorded.bench
    stops.push(replay.stop)
    if (listProbe.status !== 200 || (JSON.parse(listProbe.body.toString()) as unknown[]).length !== 100)
      throw new Error(`unified list probe answered ${listProbe.status}`)
    if (passProbe.status !== 200) throw new Error(`passthrough probe answered ${passProbe.status}`)
    const providerAuth = `Bearer ${DEFAULT_PERSONAL_API_KEY}`

    // Start-up and idle memory: three cold starts of the compiled server on the provisioned store.
    const starts: BenchProcess[] = []
    for (let i = 0; i < 3; i++) {
      const p = await startUnigate(sqliteEnv)
      starts.push(p)
      await p.stop()
    }
    // The median start; its CPU time (user + system) says more than wall time on a busy machine.
    const startup = [...starts].sort((a, b) => a.startupMs - b.startupMs)[1]!
    const unigate = await startUnigate(sqliteEnv, profiled('unigate'))
    stops.push(unigate.stop)
    await new Promise((r) => setTimeout(r, 2000))
    const idleRss = unigate.rssMb()

    // 3. Unified list vs the minimal gateway.
    if (only('list')) {
      const upstream = {
        UPSTREAM: replayUrl,
        UPSTREAM_PATH: hogql.url,
        UPSTREAM_BODY: hogql.body,
        UPSTREAM_AUTH: providerAuth,
      }
      const minimal = await startProcess(
        process.execPath,
        [...profiled('minimal-gateway'), 'bench/baselines/minimal-gateway.mjs'],
        upstream,
      )
      stops.push(minimal.stop)
      const floor = await startFrameworkGateway(upstream)
      stops.push(floor.stop)
      // The same baseline keeping PostHog's 3 concurrent queries per team, as Unigate does.
      const capped = await startProcess(
        process.execPath,
        [...profiled('capped-gateway'), 'bench/baselines/minimal-gateway.mjs'],
        { ...upstream, UPSTREAM_CONNECTIONS: String(QUERIES_PER_TEAM) },
      )
      stops.push(capped.stop)
      const rows = await compare([
        { name: 'minimal Node gateway (baseline)', url: `${minimal.url}/events`, pid: minimal.child.pid },
        { name: 'Unigate', url: `${unigate.url}${listPath}`, headers: auth, pid: unigate.child.pid },
        { name: FLOOR_NAME, url: `${floor.url}${listPath}`, pid: floor.child.pid },
        { name: CAPPED_NAME, url: `${capped.url}/events`, pid: capped.child.pid },
        ...(tenantLists.length > 0
          ? [{ name: TENANTS_NAME, url: unigate.url, spread: tenantLists, pid: unigate.child.pid }]
          : []),
      ])
      const [base, ours, stack, limited, spread] = rows as [
        LoadResult,
        LoadResult,
        LoadResult,
        LoadResult,
        LoadResult | undefined,
      ]
      sections.push({
        title: `unified list: GET /analytics/{connection}/event?${LIST_QUERY}`,
        rows,
        lines: [
          `Unigate / minimal gateway: **${fmt(ratio(ours, base))}** (target >= 0.90x)${cpuLine(base, ours)}`,
          spread
            ? `Unigate serving ${TENANTS} tenants / minimal gateway: **${fmt(ratio(spread, base))}** (target >= 0.90x)${cpuLine(base, spread)}`
            : 'many tenants: skipped (BENCH_TENANTS=0)',
          floorLine(base, ours, stack),
          `Unigate / the minimal gateway keeping PostHog's ${QUERIES_PER_TEAM} concurrent queries per team: ${fmt(ratio(ours, limited))}${cpuLine(limited, ours)}`,
        ],
      })
      await capped.stop()
      await floor.stop()
      await minimal.stop()
    }

    // 4. Passthrough vs a bare undici proxy and nginx.
    if (only('passthrough')) {
      const proxy = await startProcess(
        process.execPath,
        [...profiled('undici-proxy'), 'bench/baselines/undici-proxy.mjs'],
        {
          UPSTREAM: replayUrl,
          UPSTREAM_AUTH: providerAuth,
        },
      )
      stops.push(proxy.stop)
      const nginx = NGINX ? await startNginx([replayUrl], { authorization: providerAuth }) : undefined
      if (nginx) stops.push(nginx.stop)
      const floor = await startFrameworkGateway({ UPSTREAM: replayUrl, UPSTREAM_AUTH: providerAuth })
      stops.push(floor.stop)
      const targets: LoadTarget[] = [
        {
          name: 'bare undici streaming proxy (baseline)',
          url: `${proxy.url}${providerPage}`,
          pid: proxy.child.pid,
        },
        { name: 'Unigate', url: `${unigate.url}${passPath}`, headers: auth, pid: unigate.child.pid },
        { name: FLOOR_NAME, url: `${floor.url}${passPath}`, pid: floor.child.pid },
      ]
      if (nginx)
        targets.push({
          name: 'nginx, one worker, proxy_pass',
          url: `${nginx.url}${providerPage}`,
          pid: nginx.child.pid,
        })
      const rows = await compare(targets)
      const [bare, passOurs, stack, nginxRow] = rows as [
        LoadResult,
        LoadResult,
        LoadResult,
        LoadResult | undefined,
      ]
      await nginx?.stop()
      await floor.stop()
      sections.push({
        title: `passthrough: GET /passthrough/{connection}${providerPage} (${passProbe.body.length} bytes)`,
        rows,
        lines: [
          `Unigate / bare undici proxy: **${fmt(ratio(passOurs, bare))}** (target >= 0.90x)${cpuLine(bare, passOurs)}`,
          nginxRow
            ? `Unigate / nginx: **${fmt(ratio(passOurs, nginxRow))}** (target >= 0.75x)${cpuLine(nginxRow, passOurs)}`
            : 'nginx: skipped, no nginx binary found (apt-get install nginx-light)',
          floorLine(bare, passOurs, stack),
        ],
      })
      await proxy.stop()
    }
    const loadedRss = unigate.rssMb()
    await unigate.stop()
    if (only('startup'))
      sections.push({
        title: 'start-up and memory (compiled server, SQLite)',
        rows: [],
        lines: [
          `start-up, spawn of \`node ${startCommandArgs().join(' ')}\` (npm start) to the first /health 200 (median of 3): **${Math.round(startup.startupMs)} ms** wall, ${Math.round(startup.cpuMs)} ms CPU (target < 500 ms)`,
          `idle RSS 2 s after start: **${idleRss.toFixed(0)} MB** (target < 100 MB); after the load above: ${loadedRss.toFixed(0)} MB`,
        ],
      })

    // 5. Scale-out on PostgreSQL behind nginx.
    if (only('scaleout')) sections.push(await scaleOut(replayUrl))
    return sections
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}

async function scaleOut(replayUrl: string): Promise<Section> {
  const title = 'scale-out: unified list, processes on PostgreSQL behind nginx'
  if (!NGINX)
    return { title, rows: [], lines: ['skipped: no nginx binary found (apt-get install nginx-light)'] }
  const outcome = await withFreshDatabase(async (databaseUrl) => {
    const env = serverEnv({ DATABASE_URL: databaseUrl })
    const stops: (() => Promise<void>)[] = []
    try {
      const ws = await provision(env, replayUrl)
      const path = `/analytics/${ws.connectionId}/event?${LIST_QUERY}`
      const headers = { authorization: `Bearer ${ws.apiKey}` }
      const a = await startUnigate(env)
      stops.push(a.stop)
      const b = await startUnigate(env)
      stops.push(b.stop)
      const one = await startNginx([a.url])
      stops.push(one.stop)
      const two = await startNginx([a.url, b.url])
      stops.push(two.stop)
      return (await compare([
        { name: 'one process behind nginx', url: `${one.url}${path}`, headers },
        { name: 'two processes behind nginx', url: `${two.url}${path}`, headers },
      ])) as [LoadResult, LoadResult]
    } finally {
      for (const stop of stops.reverse()) await stop().catch(() => undefined)
    }
  })
  if ('unreachable' in outcome) return { title, rows: [], lines: [`skipped: ${outcome.unreachable}`] }
  const [single, both] = outcome.result
  const errors = both.errors + both.non2xx + single.errors + single.non2xx
  return {
    title,
    rows: [single, both],
    lines: [
      `two processes / one: **${fmt(ratio(both, single))}**, ${errors === 0 ? 'no errors' : `${errors} errors or non-2xx answers`}`,
    ],
  }
}
