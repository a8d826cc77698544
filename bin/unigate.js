#!/usr/bin/env node
// Runs the TypeScript CLI directly: tsx compiles on load, so there is no build step to forget.
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/index.ts')
