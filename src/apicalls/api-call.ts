import type { Database } from '../store/index.js'

type ApiCallRow = Database['api_calls']

/** What a caller records; the log adds the id and the time. */
export interface NewApiCall {
  readonly workspace_id: string
  readonly connection_id?: string
  readonly integration_type: string
  readonly external_xref?: string
  readonly environment?: string
  readonly webhook_id?: string
  readonly type: 'mcp' | 'inbound' | 'webhook' | 'login'
  readonly name: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly error?: string
  readonly size?: number
  readonly ip_address?: string
  readonly user_agent?: string
  readonly is_billable: boolean
  readonly unified_response_time?: number
  readonly endapi_response_time?: number
}

/** The SDK's `ApiCall` (sdk-contract section 2): no nulls, `status` a string, booleans as booleans. */
export interface ApiCallView {
  id: string
  workspace_id: string
  connection_id?: string
  integration_type: string
  external_xref?: string
  environment: string
  webhook_id?: string
  type: string
  name: string
  method: string
  path: string
  status: string
  error?: string
  size?: number
  ip_address?: string
  user_agent?: string
  is_billable: boolean
  unified_response_time?: number
  endapi_response_time?: number
  created_at: string
}

export function apiCallView(row: ApiCallRow): ApiCallView {
  const view: ApiCallView = {
    id: row.id,
    workspace_id: row.workspace_id,
    integration_type: row.integration_type,
    environment: row.environment,
    type: row.type,
    name: row.name,
    method: row.method,
    path: row.path,
    status: row.status,
    is_billable: row.is_billable === 1,
    created_at: row.created_at,
  }
  const optional = {
    connection_id: row.connection_id,
    external_xref: row.external_xref,
    webhook_id: row.webhook_id,
    error: row.error,
    size: row.size === null ? null : Number(row.size),
    ip_address: row.ip_address,
    user_agent: row.user_agent,
    unified_response_time: row.unified_response_time === null ? null : Number(row.unified_response_time),
    endapi_response_time: row.endapi_response_time === null ? null : Number(row.endapi_response_time),
  }
  for (const [key, value] of Object.entries(optional)) {
    if (value !== null) (view as unknown as Record<string, unknown>)[key] = value
  }
  return view
}

const COLUMN_SET: Record<keyof ApiCallRow, true> = {
  id: true,
  workspace_id: true,
  connection_id: true,
  integration_type: true,
  external_xref: true,
  environment: true,
  webhook_id: true,
  type: true,
  name: true,
  method: true,
  path: true,
  status: true,
  error: true,
  size: true,
  ip_address: true,
  user_agent: true,
  is_billable: true,
  unified_response_time: true,
  endapi_response_time: true,
  created_at: true,
}
/** Every column of an `api_calls` row (the record type makes the list complete). */
export const API_CALL_COLUMNS = Object.keys(COLUMN_SET) as (keyof ApiCallRow)[]

/**
 * The most an API-call row keeps of text a caller chose: the user agent, and an error that names what the
 * caller sent (a tool call's unknown argument). Every recorder's rows pass through apiCallRow, so none
 * stores more: a tool call naming a 900 KB argument wrote 900 KB to the log each time, and a list of 100
 * such records was a 90 MB answer.
 */
export const MAX_API_CALL_TEXT = 512

/**
 * `text` cut to MAX_API_CALL_TEXT UTF-16 units, never between the two halves of a surrogate pair: cut there,
 * the record held a lone surrogate, which is not text (JSON answers it as an escape no SDK reads back).
 */
export function clipApiCallText(text: string): string {
  if (text.length <= MAX_API_CALL_TEXT) return text
  const last = text.charCodeAt(MAX_API_CALL_TEXT - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_API_CALL_TEXT - 1 : MAX_API_CALL_TEXT)
}

function clipText(text: string | undefined): string | null {
  return text === undefined ? null : clipApiCallText(text)
}

export function apiCallRow(id: string, createdAt: string, call: NewApiCall): ApiCallRow {
  return {
    id,
    workspace_id: call.workspace_id,
    connection_id: call.connection_id ?? null,
    integration_type: call.integration_type,
    external_xref: call.external_xref ?? null,
    environment: call.environment ?? 'Production',
    webhook_id: call.webhook_id ?? null,
    type: call.type,
    name: call.name,
    method: call.method,
    path: call.path,
    status: String(call.status),
    error: clipText(call.error),
    size: call.size ?? null,
    ip_address: call.ip_address ?? null,
    user_agent: clipText(call.user_agent),
    is_billable: call.is_billable ? 1 : 0,
    unified_response_time: call.unified_response_time ?? null,
    endapi_response_time: call.endapi_response_time ?? null,
    created_at: createdAt,
  }
}
