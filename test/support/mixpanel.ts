import {
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_TOKEN,
  DEFAULT_SERVICE_ACCOUNT,
  type MixpanelEmulator,
} from '../../emulators/mixpanel/index.js'

/**
 * A Mixpanel connection's `auth` for the emulator: its service account and default project, in the EU region,
 * the project created before 2023 (so its raw export dates events in the project's time zone, not UTC).
 */
export function mixpanelEmulatorAuth(emulator: MixpanelEmulator): Record<string, string> {
  return {
    username: DEFAULT_SERVICE_ACCOUNT.username,
    secret: DEFAULT_SERVICE_ACCOUNT.secret,
    project_id: DEFAULT_PROJECT_ID,
    project_token: DEFAULT_PROJECT_TOKEN,
    region: 'eu',
    api_url: emulator.url,
    project_created_before_2023: 'yes',
  }
}
