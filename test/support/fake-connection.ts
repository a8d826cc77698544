import { afterAll, beforeAll } from 'vitest'
import { connectFake } from './fake-integration.js'
import { type Harness, startHarness } from './harness.js'

// Apart from fake-integration.ts, which a test's mocked registry imports: the harness imports the registry,
// so the mock's factory importing it would wait on itself.

/**
 * A harness on SQLite and a connection of the fake integration in its workspace, for one describe block
 * (started before its tests, closed after them): read `h` and `connectionId` inside the tests.
 */
export function useFakeConnection(): { h: Harness; connectionId: string } {
  const suite = {} as { h: Harness; connectionId: string }
  beforeAll(async () => {
    suite.h = await startHarness('sqlite')
    suite.connectionId = await connectFake(suite.h)
  })
  afterAll(async () => suite.h?.close())
  return suite
}
