/**
 * `npm run build`: type-checks `src/` (tsc, no output), then bundles the server from `src/main.ts` into
 * `dist/main.js` with esbuild. One file instead of about 900 (ours and the dependencies') is what makes the
 * start fast: Node 20 has no module compile cache, and resolving, reading and compiling each ES module and
 * CommonJS file separately was most of the CPU a start took (issue 12, BENCHMARKS.md).
 *
 * Left outside the bundle, loaded from node_modules when first needed, exactly as without a bundle:
 * - better-sqlite3: a native addon, found by its own package path;
 * - pg and pg-boss: loaded with `require` only once a process uses PostgreSQL (src/store/lazy-modules.ts);
 * - @fastify/swagger and @fastify/swagger-ui: imported on the first request for /openapi.json or /docs, and
 *   the UI serves its static files from its own package folder;
 * - @modelcontextprotocol/sdk: imported on the first tool-server request (src/mcp/routes.ts).
 * Our own modules that are imported on first use become chunks of their own (`splitting`), loaded then.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { INSERT_THREAD_FILE } from '../src/store/thread-inserter.js'

const ROOT = join(import.meta.dirname, '..')
const OUT = join(ROOT, 'dist')

export const EXTERNAL_PACKAGES = [
  'better-sqlite3',
  'pg',
  'pg-boss',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@modelcontextprotocol/sdk',
]

execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: ROOT,
  stdio: 'inherit',
})
rmSync(OUT, { recursive: true, force: true })
await build({
  absWorkingDir: ROOT,
  // The server, and the CLI (`dist/cli/index.js`), which bin/unigate.js runs where there is no src/ (the
  // container image) and whose `serve` loads the server's own bundle.
  entryPoints: ['src/main.ts', 'src/cli/index.ts'],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Each external package, and any path inside it (`@modelcontextprotocol/sdk/server/index.js`).
  external: EXTERNAL_PACKAGES.flatMap((p) => [p, `${p}/*`]),
  // The CommonJS dependencies in the bundle call `require` for Node's own modules; an ES module has none.
  banner: {
    js: "import { createRequire as __unigateCreateRequire } from 'node:module'; const require = __unigateCreateRequire(import.meta.url);",
  },
  // Not minified: an uncaught error prints its line of code, which must stay a line of code (minified
  // lines run to hundreds of kilobytes), and the smaller file measured no faster to start.
  sourcemap: 'linked',
  // Non-ASCII text as escapes: V8 then keeps the source as one byte per character.
  charset: 'ascii',
  // No `keepNames`: it wraps every function and class in a `__name(fn, "name")` call, and each closure made
  // at run time (Fastify's hook runners, per-request arrow functions) paid it, about 2 % of a unified list
  // request (issue 12). Bundling then renames clashing names (undici's `Agent` becomes `Agent2`) in
  // `fn.name` too; error logs name the error's type by its `name` instead (serializeError, http/logging.ts),
  // which our errors, undici's and Node's set themselves.
  keepNames: false,
  logLevel: 'warning',
})

// The embedded store's insert thread (src/store/thread-inserter.ts) is a plain CommonJS file the server
// starts as a worker: `new URL('./insert-thread.cjs', import.meta.url)` from the module that starts it,
// which the bundle puts in a chunk at dist/'s top. Copied there, and checked: a chunk elsewhere would name a
// file that is not there (the server would then insert in its own thread, and log that it does).
copyFileSync(join(ROOT, 'src/store', INSERT_THREAD_FILE), join(OUT, INSERT_THREAD_FILE))
const starters = readdirSync(OUT, { recursive: true, encoding: 'utf8' }).filter(
  (f) => f.endsWith('.js') && readFileSync(join(OUT, f), 'utf8').includes(INSERT_THREAD_FILE),
)
if (starters.length === 0 || starters.some((f) => f.includes('/')))
  throw new Error(
    `the insert thread is started from ${starters.join(', ') || 'no file'}, not from dist/'s top`,
  )
