import {
  DEFAULT_PERSONAL_API_KEY,
  type PosthogEmulator,
  startPosthogEmulator,
} from '../../emulators/posthog/index.js'
import type { Harness } from './harness.js'

/** Today's UTC midnight: the seeded data covers the 30 days before it, the window lists read by default. */
export const POSTHOG_DATA_UNTIL = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000)

export async function startPosthog(seed = 7): Promise<PosthogEmulator> {
  return startPosthogEmulator({
    seed,
    size: { events: 600, sessions: 90, persons: 30 },
    until: POSTHOG_DATA_UNTIL.toISOString(),
  })
}

/** Creates a PostHog connection through the API, pointed at the emulator; answers its id. */
export async function connectPosthog(
  h: Harness,
  emulator: PosthogEmulator,
  extra: Record<string, unknown> = {},
  /** Another workspace's key (default: the harness workspace's). */
  key?: string,
) {
  const res = await h.api<{ id: string }>('POST', '/unified/connection', {
    ...(key !== undefined ? { key } : {}),
    body: {
      integration_type: 'posthog',
      auth: { token: DEFAULT_PERSONAL_API_KEY, api_url: emulator.url },
      ...extra,
    },
  })
  if (res.status !== 200) throw new Error(`connecting failed: ${res.status} ${res.text}`)
  return res.body.id
}

/** The HogQL list and report queries sent, without the per-page `person_distinct_ids` visitor lookups. */
export function sentListHogQL(emulator: PosthogEmulator): string[] {
  return sentHogQL(emulator).filter((q) => !q.includes('FROM person_distinct_ids'))
}

/** The HogQL texts that reached the emulator since its requests were last cleared. */
export function sentHogQL(emulator: PosthogEmulator): string[] {
  return emulator
    .requests()
    .filter((r) => r.path.endsWith('/query/'))
    .map((r) => (r.body as { query: { query: string } }).query.query)
}
