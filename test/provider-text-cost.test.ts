import { describe, expect, it } from 'vitest'
import { fromBamboohrEmployee } from '../src/integrations/bamboohr/mappers.js'
import type { BamboohrEmployee } from '../src/integrations/bamboohr/types.js'

/**
 * A provider's strings are read in time linear in their length: the provider is whatever answers at the
 * connection's api_url, which its key holder chooses, and one record's field must not hold the event loop
 * every tenant shares. A pay rate of a digit, 100,000 spaces and a letter took seconds (two `\s*` around an
 * optional group tried every split of the spaces); a page of them would have held the server for hours. No
 * time is measured: 2,000,000 spaces are read in milliseconds when linear and would take hours when
 * quadratic, so a regression hangs this file (and fails CI) instead of flaking on a loaded machine.
 */
describe('provider strings cost time linear in their length', () => {
  it('a BambooHR pay rate with a long run of spaces', () => {
    const employee = { id: '1', payRate: `1${' '.repeat(2_000_000)}x` } as BamboohrEmployee
    expect(fromBamboohrEmployee(employee, 'acme').compensation).toBeUndefined()
  })
})
