import { describe, expect, it } from 'vitest'
import { fromBamboohrEmployee } from '../src/integrations/bamboohr/mappers.js'
import type { BamboohrEmployee } from '../src/integrations/bamboohr/types.js'

/**
 * A provider's strings are read in time linear in their length: the provider is whatever answers at the
 * connection's api_url, which its key holder chooses, and one record's field must not hold the event loop
 * every tenant shares. A pay rate of a digit, 100,000 spaces and a letter took seconds (two `\s*` around an
 * optional group tried every split of the spaces); a page of them would have held the server for hours.
 */
describe('provider strings cost time linear in their length', () => {
  it('a BambooHR pay rate with a long run of spaces', () => {
    const employee = { id: '1', payRate: `1${' '.repeat(100_000)}x` } as BamboohrEmployee
    const started = performance.now()
    const record = fromBamboohrEmployee(employee, 'acme')
    expect(performance.now() - started).toBeLessThan(1000)
    expect(record.compensation).toBeUndefined()
  })
})
