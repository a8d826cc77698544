/**
 * Before/after of a change to Unigate's hot path, in one run: two compiled builds of the server (each a
 * copy of `dist/`, made with `npm run build` at the two commits) serve the same replayed provider, with the
 * minimal gateway and the bare undici proxy beside them, in alternating rounds, and the CPU each process
 * used per answered request is printed per round and as the median of the rounds. On a shared machine req/s
 * moves with everyone else's load; CPU per request of two builds measured in the same rounds moves far less.
 *
 *   npm run build && mkdir -p .ab/before && cp -r dist .ab/before/    # at the old commit
 *   npm run build && mkdir -p .ab/after && cp -r dist .ab/after/      # at the new one
 *   AB_BUILDS=.ab/before/dist,.ab/after/dist AB_PARTS=list,passthrough,crm npx tsx bench/ab.ts
 *   AB_BUILDS=.ab/after/dist,.ab/after/dist@UNIGATE_PROVIDER_CONNECTION_CONCURRENCY=3 …   # one build, two settings
 *
 * AB_INSTRUCTIONS=<requests> counts instructions instead of timing (bench/instructions.ts): every measured
 * process runs under valgrind's callgrind, each target gets AB_INSTRUCTIONS_WARMUP requests (default the
 * same number) and then <requests> counted ones, and the instructions per request are printed with their
 * ratios; the counts repeat from run to run, where CPU time per request does not.
 *
 *   AB_INSTRUCTIONS=2000 AB_ROUNDS=1 AB_BUILDS=.ab/before/dist,.ab/after/dist AB_PARTS=list,passthrough npx tsx bench/ab.ts
 *
 * Each copy stays inside the checkout (a `dist/` folder, which git ignores) so that it finds the external
 * packages (better-sqlite3, pg…) in node_modules as `dist/` does. AB_ROUNDS (default 4) rounds of
 * BENCH_DURATION_S each; AB_CPU_PROF=<dir> profiles each build (`<dir>/build-<i>`).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DEFAULT_HUBSPOT_TOKEN, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { DEFAULT_PERSONAL_API_KEY } from '../emulators/posthog/index.js'
import { get, provision, recordPosthog, serverEnv, TENANTS } from './gateway.js'
import {
  CALLGRIND_ENV,
  CALLGRIND_START_TIMEOUT_MS,
  type InstructionCount,
  instructionsPerRequest,
  underCallgrind,
  valgrindPresent,
} from './instructions.js'
import { CONNECTIONS, type LoadResult, type LoadTarget, load } from './load.js'
import { type BenchProcess, freePort, ROOT, startCommandArgs, startProcess } from './processes.js'
import { startRecorder, startReplay } from './replay.js'

const BUILDS = (process.env.AB_BUILDS ?? '').split(',').filter(Boolean)
/** list, tenants (the list from BENCH_TENANTS workspaces, as bench/gateway.ts's row), passthrough, crm. */
const PARTS = (process.env.AB_PARTS ?? 'list,passthrough').split(',')
const ROUNDS = Number(process.env.AB_ROUNDS ?? 4)
const CRM_QUERY = 'limit=100&fields=id,created_at,first_name,last_name,emails'
/** Requests counted per target under callgrind (AB_INSTRUCTIONS); 0 measures time, as before. */
const INSTRUCTIONS = Number(process.env.AB_INSTRUCTIONS ?? 0)
const INSTRUCTIONS_WARMUP = Number(process.env.AB_INSTRUCTIONS_WARMUP ?? INSTRUCTIONS)
if (INSTRUCTIONS > 0 && !valgrindPresent())
  throw new Error('AB_INSTRUCTIONS needs valgrind: apt-get install valgrind')
if (BUILDS.length === 0) throw new Error('AB_BUILDS=<dist copy>,<dist copy>: which builds to compare')

const stops: (() => Promise<void>)[] = []

/** A process whose cost is measured: under callgrind when instructions are counted (AB_INSTRUCTIONS). */
function measuredProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  counted = true,
): Promise<BenchProcess> {
  if (INSTRUCTIONS === 0 || !counted) return startProcess(command, args, env)
  const [valgrind, valgrindArgs] = underCallgrind(command, args)
  return startProcess(
    valgrind,
    valgrindArgs,
    { ...env, ...CALLGRIND_ENV },
    { timeoutMs: CALLGRIND_START_TIMEOUT_MS },
  )
}

/**
 * `<dir>@<node option>@<NAME=value>@…`: a build run with node options of its own (V8 heap sizes, say) and
 * settings of its own (`UNIGATE_PROVIDER_CONNECTION_CONCURRENCY=3`), so that one build can be measured with
 * two settings in the same rounds.
 */
function startBuild(spec: string, env: Record<string, string>, label: string): Promise<BenchProcess> {
  const [dir, ...extras] = spec.split('@') as [string, ...string[]]
  const nodeOptions = extras.filter((extra) => extra.startsWith('-'))
  const settings = Object.fromEntries(
    extras.filter((extra) => !extra.startsWith('-')).map((extra) => extra.split(/=(.*)/s).slice(0, 2)),
  ) as Record<string, string>
  const args = process.env.AB_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env.AB_CPU_PROF, label)}`]
    : []
  // Started as `npm start` starts dist/main.js, with the node options it gives.
  const startOptions = startCommandArgs().slice(0, -1)
  return measuredProcess(
    process.execPath,
    [...args, ...startOptions, ...nodeOptions, resolve(ROOT, dir, 'main.js')],
    {
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...env,
      ...settings,
    },
    label !== 'probe',
  )
}

/** Every build of AB_BUILDS, one process each, stopped with the rest; `label-<i>` names each one's profile. */
async function startBuilds(env: Record<string, string>, label: string): Promise<BenchProcess[]> {
  const servers: BenchProcess[] = []
  for (const [i, dir] of BUILDS.entries()) {
    const s = await startBuild(dir, env, `${label}-${i}`)
    stops.push(s.stop)
    servers.push(s)
  }
  return servers
}

interface Scenario {
  readonly name: string
  readonly targets: LoadTarget[]
}

async function posthogScenarios(): Promise<Scenario[]> {
  const probes: Buffer[][] = []
  const { bench, hogql, replay } = await recordPosthog(
    'ab',
    async (b) => {
      for (const dir of BUILDS) {
        const p = await startBuild(dir, b.env, 'probe')
        probes.push([
          (await get(`${p.url}${b.listPath}`, b.auth)).body,
          (await get(`${p.url}${b.passPath}`, b.auth)).body,
          ...(await Promise.all(
            b.tenantLists.map(async (ask) => (await get(`${p.url}${ask.path}`, ask.headers)).body),
          )),
        ])
        await p.stop()
      }
    },
    PARTS.includes('tenants') ? TENANTS : 0,
  )
  stops.push(replay.stop)
  for (const [i, answers] of probes.entries()) {
    if (answers.some((body, k) => !body.equals(probes[0]![k]!)))
      throw new Error(`build ${BUILDS[i]} answered other bytes than ${BUILDS[0]}`)
    // Every tenant's list is the first workspace's page.
    if (answers.slice(2).some((body) => !body.equals(answers[0]!)))
      throw new Error(`build ${BUILDS[i]} answered a tenant other bytes than the first workspace`)
  }
  const { env, replayUrl, auth, listPath, passPath, providerPage, tenantLists } = bench
  const servers = await startBuilds(env, 'build')
  const providerAuth = `Bearer ${DEFAULT_PERSONAL_API_KEY}`
  const scenarios: Scenario[] = []
  if (PARTS.includes('list') || PARTS.includes('tenants')) {
    const minimal = await measuredProcess(process.execPath, ['bench/baselines/minimal-gateway.mjs'], {
      UPSTREAM: replayUrl,
      UPSTREAM_PATH: hogql.url,
      UPSTREAM_BODY: hogql.body,
      UPSTREAM_AUTH: providerAuth,
    })
    stops.push(minimal.stop)
    const baseline = { name: 'minimal gateway', url: `${minimal.url}/events`, pid: minimal.child.pid }
    if (PARTS.includes('list'))
      scenarios.push({
        name: 'unified list',
        targets: [
          baseline,
          ...servers.map((s, i) => ({
            name: BUILDS[i]!,
            url: `${s.url}${listPath}`,
            headers: auth,
            pid: s.child.pid,
          })),
        ],
      })
    if (PARTS.includes('tenants'))
      scenarios.push({
        name: `unified list from ${TENANTS} tenants`,
        targets: [
          baseline,
          ...servers.map((s, i) => ({ name: BUILDS[i]!, url: s.url, spread: tenantLists, pid: s.child.pid })),
        ],
      })
  }
  if (PARTS.includes('passthrough')) {
    const proxy = await measuredProcess(process.execPath, ['bench/baselines/undici-proxy.mjs'], {
      UPSTREAM: replayUrl,
      UPSTREAM_AUTH: providerAuth,
    })
    stops.push(proxy.stop)
    scenarios.push({
      name: 'passthrough',
      targets: [
        { name: 'undici proxy', url: `${proxy.url}${providerPage}`, pid: proxy.child.pid },
        ...servers.map((s, i) => ({
          name: BUILDS[i]!,
          url: `${s.url}${passPath}`,
          headers: auth,
          pid: s.child.pid,
        })),
      ],
    })
  }
  return scenarios
}

async function crmScenario(): Promise<Scenario> {
  const replayPort = await freePort()
  const replayUrl = `http://127.0.0.1:${replayPort}`
  const env = serverEnv({ UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-ab-crm-')) })
  const recordings = join(mkdtempSync(join(tmpdir(), 'unigate-ab-crm-replay-')), 'recordings.json')
  const emulator = await startHubspotEmulator({ seed: 1, contacts: 300 })
  const recorder = await startRecorder(replayPort, emulator.url)
  const ws = await provision(env, replayUrl, { type: 'hubspot', token: DEFAULT_HUBSPOT_TOKEN })
  const auth = { authorization: `Bearer ${ws.apiKey}` }
  const listPath = `/crm/${ws.connectionId}/contact?${CRM_QUERY}`
  const probes: Buffer[] = []
  for (const dir of BUILDS) {
    const p = await startBuild(dir, env, 'probe')
    probes.push((await get(`${p.url}${listPath}`, auth)).body)
    await p.stop()
  }
  await recorder.close()
  await emulator.close()
  for (const [i, body] of probes.entries())
    if (!body.equals(probes[0]!)) throw new Error(`build ${BUILDS[i]} answered other bytes than ${BUILDS[0]}`)
  const list = recorder.recordings.find(
    (r) => r.method === 'GET' && r.url.startsWith('/crm/v3/objects/contacts?'),
  )!
  recorder.save(recordings)
  const replay = await startReplay(recordings, replayPort)
  stops.push(replay.stop)
  const minimal = await measuredProcess(process.execPath, ['bench/baselines/minimal-crm-gateway.mjs'], {
    UPSTREAM: replayUrl,
    UPSTREAM_PATH: list.url,
    UPSTREAM_AUTH: `Bearer ${DEFAULT_HUBSPOT_TOKEN}`,
  })
  stops.push(minimal.stop)
  const servers = await startBuilds(env, 'crm')
  return {
    name: 'CRM list',
    targets: [
      { name: 'minimal gateway', url: `${minimal.url}/contacts`, pid: minimal.child.pid },
      ...servers.map((s, i) => ({
        name: BUILDS[i]!,
        url: `${s.url}${listPath}`,
        headers: auth,
        pid: s.child.pid,
      })),
    ],
  }
}

/**
 * One scenario's instructions per request, target by target, in AB_ROUNDS rounds, with each target's ratio to
 * the baseline (the first target) and each build's to the first build.
 */
async function countInstructions(scenario: Scenario): Promise<void> {
  const rounds: InstructionCount[][] = scenario.targets.map(() => [])
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of scenario.targets.entries()) {
      rounds[i]!.push(
        await instructionsPerRequest(target, round === 0 ? INSTRUCTIONS_WARMUP : 0, INSTRUCTIONS),
      )
    }
    console.log(
      `${scenario.name} round ${round + 1}, instructions per request: ${scenario.targets
        .map((t, i) => {
          const c = rounds[i]![round]!
          return `${t.name} ${(c.perRequest / 1000).toFixed(0)}k${c.failures ? ` (${c.failures} failures)` : ''}`
        })
        .join(' | ')}`,
    )
  }
  const per = (i: number) => median(rounds[i]!.map((c) => c.perRequest))
  console.log(
    `${scenario.name}, instructions per request (median of ${ROUNDS} rounds, ${INSTRUCTIONS} requests each):`,
  )
  for (const [i, target] of scenario.targets.entries()) {
    const against = [
      i > 0 ? `${(per(i) / per(0)).toFixed(3)}x ${scenario.targets[0]!.name}` : undefined,
      i > 1 ? `${(per(i) / per(1)).toFixed(3)}x ${scenario.targets[1]!.name}` : undefined,
    ].filter(Boolean)
    console.log(
      `  ${target.name}: ${(per(i) / 1000).toFixed(1)}k${against.length ? ` (${against.join(', ')})` : ''}`,
    )
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

try {
  const scenarios = [
    ...(['list', 'tenants', 'passthrough'].some((part) => PARTS.includes(part))
      ? await posthogScenarios()
      : []),
    ...(PARTS.includes('crm') ? [await crmScenario()] : []),
  ]
  for (const scenario of scenarios) {
    if (INSTRUCTIONS > 0) {
      await countInstructions(scenario)
      continue
    }
    const rounds: LoadResult[][] = scenario.targets.map(() => [])
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, target] of scenario.targets.entries()) rounds[i]!.push(await load(target, round === 0))
      console.log(
        `${scenario.name} round ${round + 1}: ${scenario.targets
          .map(
            (t, i) =>
              `${t.name} ${rounds[i]![round]!.requestsPerSecond.toFixed(0)}/s ${rounds[i]![round]!.cpuUsPerRequest?.toFixed(0)} µs (user ${rounds[i]![round]!.userCpuUsPerRequest?.toFixed(0)})`,
          )
          .join(' | ')}`,
      )
    }
    console.log(`${scenario.name}, median of ${ROUNDS} rounds, ${CONNECTIONS} connections:`)
    for (const [i, target] of scenario.targets.entries()) {
      const rs = rounds[i]!
      const errs = rs.reduce((n, r) => n + r.errors + r.non2xx, 0)
      const m = (f: (r: LoadResult) => number | undefined) => median(rs.map((r) => f(r) ?? Number.NaN))
      console.log(
        `  ${target.name}: ${m((r) => r.cpuUsPerRequest).toFixed(0)} µs CPU/req (user ${m((r) => r.userCpuUsPerRequest).toFixed(0)}), ${m((r) => r.requestsPerSecond).toFixed(0)} req/s, p99 ${m((r) => r.p99Ms)} ms${errs ? `, ${errs} failures` : ''}`,
      )
    }
    // Build against build, round by round: the pairs share the machine's load of that round.
    for (let i = 2; i < scenario.targets.length; i++) {
      const ratios = rounds[i]!.map((r, k) => r.cpuUsPerRequest! / rounds[1]![k]!.cpuUsPerRequest!)
      const user = rounds[i]!.map((r, k) => r.userCpuUsPerRequest! / rounds[1]![k]!.userCpuUsPerRequest!)
      console.log(
        `  ${scenario.targets[i]!.name} / ${scenario.targets[1]!.name}, CPU per request round by round: ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)}); user ${user.map((x) => x.toFixed(2)).join(' ')} (median ${median(user).toFixed(2)})`,
      )
    }
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined)
}
process.exit(0)
