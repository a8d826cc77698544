import type { ToolServerOptions } from './options.js'
import type { Tool } from './tool.js'

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

/** Applies `permissions`, `tools` and `aliases` to the tools a mode offers. */
export function selectTools(tools: readonly Tool[], options: ToolServerOptions): Tool[] {
  return tools
    .filter((t) => !options.permissions || options.permissions.has(t.permission))
    .filter((t) => !options.tools || options.tools.has(t.name))
    .map((t) =>
      options.aliases.size > 0 ? { ...t, description: describeWithAliases(t, options.aliases) } : t,
    )
}
