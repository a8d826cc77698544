import { errorBody } from '../http/errors.js'
import type { ToolOutcome } from './invoke.js'

/** The first MCP protocol version with `structuredContent` in tool results. */
export const STRUCTURED_CONTENT_SINCE = '2025-06-18'

/** Protocol versions are dates (YYYY-MM-DD), so they compare as text. */
export function supportsStructuredContent(protocolVersion: string | undefined): boolean {
  return protocolVersion !== undefined && protocolVersion >= STRUCTURED_CONTENT_SINCE
}

export interface CallToolResult {
  [key: string]: unknown
  content: { type: 'text'; text: string }[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/**
 * An outcome as an MCP tool result: the JSON as text for every client, and as `structuredContent` for
 * clients speaking 2025-06-18 or later. `structuredContent` must be an object, so a list is `{ data: [...] }`.
 */
export function toCallToolResult(outcome: ToolOutcome, protocolVersion: string | undefined): CallToolResult {
  const structured = supportsStructuredContent(protocolVersion)
  if (!outcome.ok) {
    return {
      content: [{ type: 'text', text: outcome.message }],
      ...(structured ? { structuredContent: errorBody(outcome.status, outcome.message, outcome.extra) } : {}),
      isError: true,
    }
  }
  const value = outcome.value
  const object =
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { data: value }
  return {
    content: [{ type: 'text', text: outcome.text }],
    ...(structured ? { structuredContent: object } : {}),
  }
}
