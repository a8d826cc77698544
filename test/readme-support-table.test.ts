import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import { supportTable, withSupportTable } from '../src/integrations/support-table.js'

describe("the README's integration table", () => {
  it('is exactly what the integration definitions generate (run `npm run docs` after changing one)', () => {
    const readme = readFileSync('README.md', 'utf8')
    expect(withSupportTable(readme, supportTable(INTEGRATIONS))).toBe(readme)
  })
})
