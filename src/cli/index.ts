import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config.js'
import { workspaceCommands } from './workspace.js'

const USAGE = `unigate <command>

  serve                                   start the API server
  migrate                                 bring the database schema up to date
  workspace create --name NAME            create a workspace; prints its id, API key and secret
  workspace list                          list workspaces
  workspace get ID                        show a workspace's settings
  workspace set ID --slow-fields-opt-in true|false
  workspace set ID --allowed-redirect-origins https://app.example.com,https://staging.example.com
                                          where the authorization flow may send end users back to
  workspace oauth-app ID TYPE --client-id ID --client-secret SECRET [--authorize-url U --token-url U
                          --revoke-url U --api-url U]   the workspace's OAuth client for an integration
  key create WORKSPACE_ID                 issue another API key for a workspace
  key list WORKSPACE_ID                   list a workspace's keys
  key revoke KEY_ID                       revoke an API key

Configuration comes from the environment; see README.md.`

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'slow-fields-opt-in': { type: 'string' },
      'allowed-redirect-origins': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'authorize-url': { type: 'string' },
      'token-url': { type: 'string' },
      'revoke-url': { type: 'string' },
      'api-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  const [command, ...rest] = positionals
  if (!command || values.help) {
    console.log(USAGE)
    return command ? 0 : 1
  }
  if (command === 'serve') {
    await import('../main.js')
    return -1
  }
  return workspaceCommands(loadConfig(), command, rest, values)
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code)
  },
  (err: unknown) => {
    console.error(err instanceof ConfigError || err instanceof Error ? `error: ${err.message}` : err)
    process.exit(1)
  },
)
