/** `npm run docs`: regenerates the README's integration table from the integration definitions. */
import { readFileSync, writeFileSync } from 'node:fs'
import { INTEGRATIONS } from '../src/integrations/registry.js'
import { supportTable, withSupportTable } from '../src/integrations/support-table.js'

const readme = readFileSync('README.md', 'utf8')
const updated = withSupportTable(readme, supportTable(INTEGRATIONS))
if (updated !== readme) writeFileSync('README.md', updated)
console.log(updated === readme ? 'README.md is up to date' : 'README.md integration table regenerated')
