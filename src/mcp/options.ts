import { Type } from '@sinclair/typebox'
import { badRequest } from '../errors.js'
import { TOOL_FORMATS } from './vendor-formats.js'

const List = (description: string) =>
  Type.Optional(
    Type.Array(Type.String(), { description: `${description}; repeated or comma-joined (a=x,y)` }),
  )
const Flag = (description: string) =>
  Type.Optional(Type.String({ description: `${description}: true or false (default false)` }))

/**
 * The URL parameters of every tool server route (spec 6.4), as a schema: a parameter not named here is a 400
 * naming it and these, as on the API's routes, so a misspelt `tool=` or `permission=` is heard of rather than
 * serving every tool. The values are read by parseToolServerOptions.
 */
export const ToolServerQuery = Type.Object(
  {
    connection: Type.Optional(Type.String({ description: "A connection id: that connection's tools" })),
    tools: List('Only these tool ids'),
    permissions: List('Only tools needing one of these permissions (<object>_read, _write, _remove)'),
    aliases: Type.Optional(Type.String({ description: 'word:alias1,alias2;word2:alias3' })),
    defer_tools: List('`all`, or tool ids or partial ids marked for deferred loading'),
    include_external_tools: Flag("Add the integration's provider endpoints outside the unified model"),
    hide_sensitive: Flag('Remove personal fields from results'),
    token: Type.Optional(
      Type.String({ description: 'The workspace API key, for clients that cannot set headers' }),
    ),
    // Unified's own example client (unified-to/unified-mcp-typescript, main.ts) sends `type` and `dc` to
    // /mcp, /tools and the call route alike: taken everywhere, so that its URLs work here unchanged.
    type: Type.Optional(
      Type.String({
        description: `GET /tools: the tools' format, one of ${TOOL_FORMATS.join(', ')}; taken and unused on the other routes`,
      }),
    ),
    dc: Type.Optional(
      Type.String({
        description: "Unified's data center (local, dev, prod); taken and unused: one server here",
      }),
    ),
  },
  { additionalProperties: false },
)

/** The tool server's URL parameters (spec 6.4), parsed once per request. */
export interface ToolServerOptions {
  /** Connection mode when set; workspace mode otherwise. */
  readonly connection?: string
  /** `tools`: only these tool ids. */
  readonly tools?: ReadonlySet<string>
  /** `permissions`: only tools needing one of these permission names. */
  readonly permissions?: ReadonlySet<string>
  /** `aliases`: extra words for descriptions (word -> its aliases). */
  readonly aliases: ReadonlyMap<string, readonly string[]>
  /** `defer_tools`: `all`, or tool ids / partial ids marked for deferred loading. */
  readonly deferTools: { readonly all: boolean; readonly patterns: readonly string[] }
  readonly includeExternalTools: boolean
  readonly hideSensitive: boolean
}

export type RawQuery = Readonly<Record<string, unknown>>

/** Repeated (`tools=a&tools=b`) and comma-joined (`tools=a,b`) lists are both accepted. */
function list(query: RawQuery, name: string): string[] | undefined {
  const value = query[name]
  if (value === undefined) return undefined
  const items = (Array.isArray(value) ? value : [value])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
  return items
}

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name]
  if (value === undefined) return undefined
  return String(Array.isArray(value) ? value[value.length - 1] : value)
}

export function booleanParam(query: RawQuery, name: string): boolean {
  const value = single(query, name)?.toLowerCase()
  if (value === undefined || value === 'false' || value === '0') return false
  if (value === '' || value === 'true' || value === '1') return true
  throw badRequest(`${name}: '${value}' is not allowed; use true or false`)
}

const PERMISSION = /^[a-z][a-z0-9]*(_[a-z0-9]+)*_(read|write|remove)$/

function permissions(query: RawQuery): Set<string> | undefined {
  const names = list(query, 'permissions')
  if (names === undefined) return undefined
  for (const name of names) {
    if (!PERMISSION.test(name)) {
      throw badRequest(
        `permissions: '${name}' is not a permission name; use <object>_read, <object>_write or <object>_remove, as in analytics_event_read`,
      )
    }
  }
  return new Set(names)
}

/**
 * Bounds on `aliases`: each alias restates the title of every tool its word matches, so the list grows with
 * words × aliases × tools (8 KB of aliases made a 480 KB tool list); these leave room for any real glossary.
 */
export const ALIAS_LIMITS = { words: 50, perWord: 10, length: 64 } as const

/** `word:alias1,alias2;word2:alias3`. */
export function parseAliases(text: string | undefined): Map<string, string[]> {
  const aliases = new Map<string, string[]>()
  if (!text) return aliases
  for (const entry of text.split(';')) {
    if (entry.trim() === '') continue
    const colon = entry.indexOf(':')
    const word = entry.slice(0, colon).trim().toLowerCase()
    const words = entry
      .slice(colon + 1)
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean)
    if (colon <= 0 || word === '' || words.length === 0) {
      throw badRequest(`aliases: '${entry}' is not word:alias1,alias2 (entries are separated by ;)`)
    }
    const all = [...(aliases.get(word) ?? []), ...words]
    if (all.length > ALIAS_LIMITS.perWord) {
      throw badRequest(
        `aliases: '${word.slice(0, ALIAS_LIMITS.length)}' has ${all.length} aliases; give at most ${ALIAS_LIMITS.perWord} per word`,
      )
    }
    const tooLong = [word, ...words].find((w) => w.length > ALIAS_LIMITS.length)
    if (tooLong !== undefined) {
      throw badRequest(
        `aliases: '${tooLong.slice(0, 20)}…' is longer than ${ALIAS_LIMITS.length} characters, the most a word or alias may have`,
      )
    }
    aliases.set(word, all)
    if (aliases.size > ALIAS_LIMITS.words)
      throw badRequest(`aliases: give at most ${ALIAS_LIMITS.words} words (entries separated by ;)`)
  }
  return aliases
}

export function parseToolServerOptions(query: RawQuery): ToolServerOptions {
  const connection = single(query, 'connection')
  const tools = list(query, 'tools')
  const defer = list(query, 'defer_tools') ?? []
  const perms = permissions(query)
  return {
    ...(connection ? { connection } : {}),
    ...(tools ? { tools: new Set(tools) } : {}),
    ...(perms ? { permissions: perms } : {}),
    aliases: parseAliases(single(query, 'aliases')),
    deferTools: { all: defer.includes('all'), patterns: defer.filter((d) => d !== 'all') },
    includeExternalTools: booleanParam(query, 'include_external_tools'),
    hideSensitive: booleanParam(query, 'hide_sensitive'),
  }
}
