import type { ApiCallLog } from '../apicalls/index.js'
import { nestedTooDeep, resultJson } from '../engine/result-json.js'
import { ApiError } from '../errors.js'
import { hideSensitive } from './sensitive.js'
import type { Tool, ToolArguments } from './tool.js'

/** Who is calling, for the API-call log. */
export interface CallerInfo {
  readonly workspaceId: string
  readonly connectionId?: string
  readonly integrationType: string
  readonly externalXref?: string
  readonly environment?: string
  readonly ipAddress?: string
  readonly userAgent?: string
}

export type ToolOutcome =
  | {
      readonly ok: true
      readonly value: unknown
      /** `value` as JSON text (`null` for none), written once for the tool result and the call's size. */
      readonly text: string
    }
  | {
      readonly ok: false
      readonly status: number
      readonly message: string
      readonly extra: Record<string, unknown>
    }

function failure(err: unknown): Extract<ToolOutcome, { ok: false }> {
  if (err instanceof ApiError)
    return { ok: false, status: err.statusCode, message: err.message, extra: { ...err.extra } }
  return { ok: false, status: 500, message: 'internal error; the server log has the details', extra: {} }
}

/**
 * Runs one tool call: the result, or the API's error as a value (a failing tool never breaks the MCP
 * session), with `hide_sensitive` applied, and the call recorded as an API call of type `mcp`.
 */
export async function invokeTool(
  tool: Tool,
  args: ToolArguments,
  hide: boolean,
  caller: CallerInfo,
  apiCalls: ApiCallLog,
  onUnexpected: (err: unknown) => void,
): Promise<ToolOutcome> {
  const started = performance.now()
  let outcome: ToolOutcome
  try {
    const run = await tool.run(args)
    const value = hide ? hideSensitive(run, tool.sensitivity) : run
    outcome = { ok: true, value, text: resultJson(value ?? null) }
  } catch (thrown) {
    // hide_sensitive walks the result as JSON.stringify does, and overflows on the same nesting.
    const err = nestedTooDeep(thrown) ?? thrown
    if (!(err instanceof ApiError)) onUnexpected(err)
    else if (err.cause !== undefined) onUnexpected(err.cause)
    outcome = failure(err)
  }
  apiCalls.record({
    workspace_id: caller.workspaceId,
    ...(caller.connectionId ? { connection_id: caller.connectionId } : {}),
    integration_type: caller.integrationType,
    ...(caller.externalXref ? { external_xref: caller.externalXref } : {}),
    ...(caller.environment ? { environment: caller.environment } : {}),
    type: 'mcp',
    name: tool.name,
    method: tool.method,
    path: `${tool.method} ${tool.route}`,
    status: outcome.ok ? 200 : outcome.status,
    ...(outcome.ok ? {} : { error: outcome.message }),
    ...(outcome.ok ? { size: Buffer.byteLength(outcome.text) } : {}),
    ...(caller.ipAddress ? { ip_address: caller.ipAddress } : {}),
    ...(caller.userAgent ? { user_agent: caller.userAgent } : {}),
    is_billable: tool.billable && outcome.ok,
    unified_response_time: Math.round(performance.now() - started),
  })
  return outcome
}
