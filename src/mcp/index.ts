export { toolServerRoutes } from './routes.js'
export { WORKSPACE_TOOLS, type WorkspaceToolEntry } from './workspace-tools.js'
