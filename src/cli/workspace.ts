import { oauthEndpointsFrom } from '../authorization/oauth-apps.js'
import type { Config } from '../config.js'
import { createServices } from '../services.js'

type Options = {
  name?: string
  'slow-fields-opt-in'?: string
  'allowed-redirect-origins'?: string
  'client-id'?: string
  'client-secret'?: string
  'authorize-url'?: string
  'token-url'?: string
  'revoke-url'?: string
  'api-url'?: string
}

function bool(name: string, value: string): boolean {
  if (value === 'true') return true
  if (value === 'false') return false
  throw new Error(`--${name} takes true or false, got '${value}'`)
}

/** One-shot commands on workspaces and keys; they open the database, act and close it. */
export async function workspaceCommands(
  config: Config,
  command: string,
  args: string[],
  options: Options,
): Promise<number> {
  const services = await createServices(config, { background: false })
  try {
    const [sub, arg] = args
    if (command === 'migrate') {
      console.log('database is up to date')
      return 0
    }
    if (command === 'workspace' && sub === 'create') {
      const { workspace, secret } = await services.workspaces.create(options.name ?? 'default')
      const { apiKey, keyId } = await services.apiKeys.issue(workspace.id)
      console.log(
        JSON.stringify({ workspace_id: workspace.id, api_key: apiKey, key_id: keyId, secret }, null, 2),
      )
      return 0
    }
    if (command === 'workspace' && sub === 'list') {
      console.log(JSON.stringify(await services.workspaces.list(), null, 2))
      return 0
    }
    if (command === 'workspace' && sub === 'get' && arg) {
      const ws = await services.workspaces.get(arg)
      if (!ws) throw new Error(`workspace ${arg} not found`)
      console.log(JSON.stringify(ws, null, 2))
      return 0
    }
    if (command === 'workspace' && sub === 'set' && arg) {
      const optIn = options['slow-fields-opt-in']
      const origins = options['allowed-redirect-origins']
      if (optIn === undefined && origins === undefined)
        throw new Error(
          'workspace set needs --slow-fields-opt-in true|false and/or --allowed-redirect-origins ORIGIN,ORIGIN',
        )
      const ws = await services.workspaces.update(arg, {
        ...(optIn !== undefined ? { slow_fields_opt_in: bool('slow-fields-opt-in', optIn) } : {}),
        ...(origins !== undefined
          ? {
              allowed_redirect_origins: origins
                .split(',')
                .map((o) => o.trim())
                .filter(Boolean),
            }
          : {}),
      })
      if (!ws) throw new Error(`workspace ${arg} not found`)
      // Running servers cache settings: tell them (on PostgreSQL, through NOTIFY).
      await services.workspaceSettings.invalidate(arg)
      console.log(JSON.stringify(ws, null, 2))
      return 0
    }
    if (command === 'workspace' && sub === 'oauth-app' && arg && args[2]) {
      const clientId = options['client-id']
      const clientSecret = options['client-secret']
      if (!clientId || !clientSecret)
        throw new Error('workspace oauth-app needs --client-id and --client-secret')
      const endpoints = oauthEndpointsFrom(
        Object.fromEntries(
          (['authorize-url', 'token-url', 'revoke-url', 'api-url'] as const)
            .filter((k) => options[k])
            .map((k) => [k.replace('-', '_'), options[k]!]),
        ),
        services.config.outbound.allowAddresses,
      )
      await services.authorization.oauthApps.put({
        workspaceId: arg,
        integrationType: args[2],
        clientId,
        clientSecret,
        endpoints,
      })
      console.log(JSON.stringify({ integration_type: args[2], client_id: clientId, ...endpoints }, null, 2))
      return 0
    }
    if (command === 'key' && sub === 'create' && arg) {
      if (!(await services.workspaces.get(arg))) throw new Error(`workspace ${arg} not found`)
      console.log(JSON.stringify(await services.apiKeys.issue(arg), null, 2))
      return 0
    }
    if (command === 'key' && sub === 'list' && arg) {
      console.log(JSON.stringify(await services.apiKeys.list(arg), null, 2))
      return 0
    }
    if (command === 'key' && sub === 'revoke' && arg) {
      if (!(await services.apiKeys.revoke(arg))) throw new Error(`key ${arg} not found or already revoked`)
      console.log(`revoked ${arg}`)
      return 0
    }
    throw new Error(`unknown command: ${[command, ...args].join(' ')} (run unigate --help)`)
  } finally {
    await services.close()
  }
}
