export { type ApiKeyClaims, ApiKeys } from './api-keys.js'
export { normalizeOrigin } from './origins.js'
export { WorkspaceSettingsCache } from './settings-cache.js'
export { type Workspace, type WorkspaceSettingsPatch, WorkspaceStore } from './workspaces.js'
