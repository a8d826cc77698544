import { DEFAULT_PERSONAL_API_KEY, startPosthogEmulator } from '../emulators/posthog/index.js'

/** One provider the demo runs: its emulator, and the `auth` a connection to it needs. */
export interface DemoProvider {
  readonly integrationType: string
  start(): Promise<{ url: string; auth: Record<string, unknown>; close(): Promise<void> }>
}

/** Every emulated provider the demo connects; each integration adds its entry here. */
export const DEMO_PROVIDERS: readonly DemoProvider[] = [
  {
    integrationType: 'posthog',
    async start() {
      const emulator = await startPosthogEmulator({ seed: 1 })
      return {
        url: emulator.url,
        auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
        close: () => emulator.close(),
      }
    },
  },
]
