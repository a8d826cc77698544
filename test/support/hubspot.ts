import { DEFAULT_HUBSPOT_TOKEN, type HubspotEmulator } from '../../emulators/hubspot/index.js'
import type { Harness } from './harness.js'
import { createConnection } from './integration-suite.js'

/** Creates a HubSpot connection through the API with the emulator's private-app token; answers its id. */
export function connectHubspot(h: Harness, emulator: HubspotEmulator): Promise<string> {
  return createConnection(h, {
    integration_type: 'hubspot',
    auth: { token: DEFAULT_HUBSPOT_TOKEN, api_url: emulator.url },
  })
}
