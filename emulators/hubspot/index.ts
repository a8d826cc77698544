export { DEFAULT_HUBSPOT_TOKEN, DEFAULT_PORTAL_ID } from './constants.js'
export { type HubspotEmulator, type HubspotEmulatorOptions, startHubspotEmulator } from './emulator.js'
