#!/usr/bin/env node
// In a checkout (src/ is there), runs the TypeScript CLI through tsx, which compiles on load: no build step
// to forget. Where there is only the build (the container image: dist/ and the production dependencies,
// without tsx), runs the bundled CLI that `npm run build` writes to dist/cli/index.js.
import { existsSync } from 'node:fs'

const source = new URL('../src/cli/index.ts', import.meta.url)
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(source.href)
} else {
  await import('../dist/cli/index.js')
}
