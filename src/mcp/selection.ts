import { ApiError, badRequest } from '../errors.js'
import type { ToolServerOptions } from './options.js'
import { type Tool, type WithheldTool, withheldMessage } from './tool.js'

function escapeRegExp(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * `aliases` add words to descriptions, never tools: each alias phrase restates the tool's title with the
 * word replaced (`event:hit` turns "list analytics event" into "list analytics hit"), so an agent
 * looking for "hits" finds `list_analytics_events`.
 */
export function describeWithAliases(tool: Tool, aliases: ToolServerOptions['aliases']): string {
  const extra: string[] = []
  const phrase = tool.name.replaceAll('_', ' ')
  for (const [word, alternatives] of aliases) {
    const pattern = new RegExp(`\\b${escapeRegExp(word)}`, 'gi')
    if (pattern.test(phrase)) {
      for (const alias of alternatives) extra.push(phrase.replace(pattern, alias))
    } else if (new RegExp(`\\b${escapeRegExp(word)}`, 'i').test(tool.description)) {
      extra.push(`${word} is also called ${alternatives.join(', ')}`)
    }
  }
  return extra.length > 0 ? `${tool.description} Also: ${extra.join('. ')}.` : tool.description
}

/** `defer_tools`: `all`, or any tool whose id contains one of the given ids or partial ids. */
export function isDeferred(name: string, defer: ToolServerOptions['deferTools']): boolean {
  return defer.all || defer.patterns.some((p) => name.includes(p))
}

/**
 * `tools` names only tools this mode offers: a name it does not is a 400 naming the parameter and the tools
 * there are (it listed no tool, as if the connection had none); one the connection's grant does not cover is
 * the 403 calling it is.
 */
function checkToolNames(
  tools: readonly Tool[],
  options: ToolServerOptions,
  withheld: readonly WithheldTool[],
): void {
  for (const name of options.tools ?? []) {
    if (tools.some((t) => t.name === name)) continue
    const notGranted = withheld.find((t) => t.name === name)
    if (notGranted) throw new ApiError(403, `tools: ${withheldMessage(notGranted)}`)
    throw badRequest(
      `tools: '${name}' is not a tool here; allowed: ${tools.map((t) => t.name).join(', ') || 'none'}`,
    )
  }
}

/** Applies `permissions`, `tools` and `aliases` to the tools a mode offers. */
export function selectTools(
  tools: readonly Tool[],
  options: ToolServerOptions,
  withheld: readonly WithheldTool[] = [],
): Tool[] {
  checkToolNames(tools, options, withheld)
  return tools
    .filter((t) => !options.permissions || options.permissions.has(t.permission))
    .filter((t) => !options.tools || options.tools.has(t.name))
    .map((t) =>
      options.aliases.size > 0 ? { ...t, description: describeWithAliases(t, options.aliases) } : t,
    )
}
