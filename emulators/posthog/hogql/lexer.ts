import { syntaxError, unsupported } from './errors.js'

export type TokenType = 'ident' | 'quoted' | 'string' | 'number' | 'symbol' | 'eof'

export interface Token {
  readonly type: TokenType
  /** Identifier name, decoded string, number text or symbol. */
  readonly value: string
  readonly position: number
}

const SYMBOLS = ['==', '!=', '<>', '<=', '>=', '=', '<', '>', '+', '-', '*', '/', '%', '(', ')', ',', '.']
const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  b: '\b',
  f: '\f',
  v: '\v',
  a: '\x07',
}

/** Reads a quoted token (string or identifier) with ClickHouse escapes: backslash sequences and doubled quotes. */
function readQuoted(text: string, start: number, quote: string): { value: string; end: number } {
  let value = ''
  let i = start + 1
  while (i < text.length) {
    const c = text[i] as string
    if (c === '\\') {
      const next = text[i + 1]
      if (next === undefined) break
      value += ESCAPES[next] ?? next
      i += 2
    } else if (c === quote) {
      if (text[i + 1] === quote) {
        value += quote
        i += 2
      } else {
        return { value, end: i + 1 }
      }
    } else {
      value += c
      i++
    }
  }
  throw syntaxError(text, start, `unterminated ${quote === "'" ? 'string' : 'quoted identifier'}`)
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    if (/\s/.test(c)) {
      i++
    } else if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i)
      i = end < 0 ? text.length : end
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2)
      if (end < 0) throw syntaxError(text, i, 'unterminated comment')
      i = end + 2
    } else if (/[A-Za-z_$]/.test(c)) {
      const match = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(text.slice(i)) as RegExpExecArray
      tokens.push({ type: 'ident', value: match[0], position: i })
      i += match[0].length
    } else if (/[0-9]/.test(c)) {
      const match = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i)) as RegExpExecArray
      tokens.push({ type: 'number', value: match[0], position: i })
      i += match[0].length
    } else if (c === "'") {
      const { value, end } = readQuoted(text, i, "'")
      tokens.push({ type: 'string', value, position: i })
      i = end
    } else if (c === '`' || c === '"') {
      const { value, end } = readQuoted(text, i, c)
      tokens.push({ type: 'quoted', value, position: i })
      i = end
    } else if (c === '{') {
      throw unsupported('Placeholders ({name})')
    } else if (c === '[') {
      throw unsupported('Array and property indexing ([…])')
    } else {
      const symbol = SYMBOLS.find((s) => text.startsWith(s, i))
      if (!symbol) throw syntaxError(text, i, `unexpected character '${c}'`)
      tokens.push({ type: 'symbol', value: symbol, position: i })
      i += symbol.length
    }
  }
  tokens.push({ type: 'eof', value: '', position: text.length })
  return tokens
}
