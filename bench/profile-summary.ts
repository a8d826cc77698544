/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [top]`: where a `node --cpu-prof` profile's time
 * went, as self time per function and per package (node_modules/<name>, node: internals, the project's own
 * files), so a benchmark's remaining gap can be named with evidence.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}

const [file, topArg] = process.argv.slice(2)
if (!file) throw new Error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]')
const top = Number(topArg ?? 25)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const self = new Map<number, number>()
// PROFILE_LAST_S keeps only the last seconds of the profile: the run of interest, not the idle start;
// PROFILE_SKIP_S leaves out its first seconds (a server's start-up, before the load began), and
// PROFILE_UNTIL_S everything after that second of the profile (one phase of a run that served several).
const lastUs = Number(process.env.PROFILE_LAST_S ?? Number.POSITIVE_INFINITY) * 1e6
const skipUs = Number(process.env.PROFILE_SKIP_S ?? 0) * 1e6
const untilUs = Number(process.env.PROFILE_UNTIL_S ?? Number.POSITIVE_INFINITY) * 1e6
const at: number[] = []
profile.timeDeltas.reduce((t, d, i) => {
  at[i] = t + d
  return t + d
}, 0)
const end = at[at.length - 1] ?? 0
// Idle samples are left out: the shares are of the time the process was working.
const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id))
profile.samples.forEach((id, i) => {
  const t = at[i] ?? 0
  if (!idle.has(id) && end - t <= lastUs && t >= skipUs && t <= untilUs)
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
})
const total = [...self.values()].reduce((a, b) => a + b, 0)

function packageOf(url: string): string {
  if (url === '') return '(native/gc)'
  const nm = url.lastIndexOf('node_modules/')
  if (nm !== -1) {
    const rest = url.slice(nm + 13).split('/')
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!
  }
  if (url.startsWith('node:')) return 'node: internals'
  const dist = /\/(dist|src)\/(.*)$/.exec(url)
  return dist ? `unigate ${dist[2]!.split('/').slice(0, 2).join('/')}` : url
}

/**
 * The source module a line of a bundle came from: esbuild writes `// src/engine/fields.ts` (or
 * `// node_modules/…`) above each module it inlines, so the nearest such marker above the line names it.
 */
const markers = new Map<string, { line: number; name: string }[]>()
function moduleOf(url: string, lineNumber: number): string | undefined {
  if (!url.startsWith('file://') || !/\/dist\/[^/]+\.js$/.test(url)) return undefined
  let list = markers.get(url)
  if (!list) {
    const path = fileURLToPath(url)
    list = []
    if (existsSync(path)) {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((text, line) => {
          const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text)
          if (m)
            list!.push({
              line,
              name: m[1]!.replace(/^node_modules\/((?:@[^/]+\/)?[^/]+).*$/, 'node_modules/$1'),
            })
        })
    }
    markers.set(url, list)
  }
  let found: string | undefined
  for (const m of list) {
    if (m.line > lineNumber) break
    found = m.name
  }
  return found
}

const fns = new Map<string, number>()
const pkgs = new Map<string, number>()
const modules = new Map<string, number>()
for (const [id, us] of self) {
  const n = byId.get(id)!
  const { functionName, url, lineNumber } = n.callFrame
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/')}:${lineNumber + 1}`
  fns.set(key, (fns.get(key) ?? 0) + us)
  const pkg = packageOf(url)
  pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us)
  const mod = moduleOf(url, lineNumber) ?? (url === '' ? functionName || '(native)' : pkg)
  modules.set(mod, (modules.get(mod) ?? 0) + us)
}
// REQUESTS=<n>: the number of requests the process answered, to print µs per request beside the shares.
const requests = Number(process.env.REQUESTS ?? 0)
const pct = (us: number) =>
  `${((us / total) * 100).toFixed(1).padStart(5)}%${requests > 0 ? ` ${(us / requests).toFixed(1).padStart(6)} µs/req` : ''}`
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`)
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`)
}
console.log(`${(total / 1000).toFixed(0)} ms sampled`)
show('self time by package', pkgs)
show('self time by source module (bundles read by their esbuild markers)', modules)
show('self time by function', fns)
