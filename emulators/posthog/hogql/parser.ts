/** A parser for the HogQL subset, after PostHog's grammar (PostHog/posthog@master:posthog/hogql/grammar/HogQLParser.g4). */
import type { ComparisonOp, Expr, OrderItem, SelectItem, SelectQuery } from './ast.js'
import { syntaxError, unsupported } from './errors.js'
import { type Token, tokenize } from './lexer.js'

/** Words that end an expression or start a clause, so they are never read as implicit aliases. */
const KEYWORDS = new Set([
  'SELECT',
  'DISTINCT',
  'FROM',
  'AS',
  'WHERE',
  'GROUP',
  'BY',
  'HAVING',
  'ORDER',
  'ASC',
  'DESC',
  'LIMIT',
  'OFFSET',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'ILIKE',
  'IS',
  'NULL',
  'TRUE',
  'FALSE',
  'NULLS',
  'FIRST',
  'LAST',
  'BETWEEN',
])

/** Valid HogQL the emulator does not implement: named so the refusal says what to avoid. */
const UNSUPPORTED_CLAUSES: Readonly<Record<string, string>> = {
  JOIN: 'JOIN',
  LEFT: 'JOIN',
  RIGHT: 'JOIN',
  INNER: 'JOIN',
  FULL: 'JOIN',
  CROSS: 'JOIN',
  ANY: 'JOIN',
  ARRAY: 'ARRAY JOIN',
  UNION: 'UNION',
  INTERSECT: 'INTERSECT',
  EXCEPT: 'EXCEPT',
  WITH: 'WITH',
  SAMPLE: 'SAMPLE',
  PREWHERE: 'PREWHERE',
  FINAL: 'FINAL',
  WINDOW: 'WINDOW',
  QUALIFY: 'QUALIFY',
  SETTINGS: 'SETTINGS',
  FORMAT: 'FORMAT',
  CASE: 'CASE',
  INTERVAL: 'INTERVAL',
  OVER: 'Window functions (OVER)',
}

class Parser {
  private readonly tokens: Token[]
  private index = 0

  constructor(private readonly text: string) {
    this.tokens = tokenize(text)
  }

  private get token(): Token {
    return this.tokens[this.index] as Token
  }

  private fail(message: string, token: Token = this.token): never {
    const found =
      token.type === 'eof' ? 'end of input' : `'${this.text.slice(token.position).split(/\s/)[0]}'`
    throw syntaxError(this.text, token.position, `${message}, found ${found}`)
  }

  private isWord(word: string, offset = 0): boolean {
    const t = this.tokens[this.index + offset]
    return t !== undefined && t.type === 'ident' && t.value.toUpperCase() === word
  }

  private acceptWord(word: string): boolean {
    if (!this.isWord(word)) return false
    this.index++
    return true
  }

  private expectWord(word: string): void {
    if (!this.acceptWord(word)) this.fail(`expected ${word}`)
  }

  private isSymbol(symbol: string): boolean {
    return this.token.type === 'symbol' && this.token.value === symbol
  }

  private acceptSymbol(symbol: string): boolean {
    if (!this.isSymbol(symbol)) return false
    this.index++
    return true
  }

  private expectSymbol(symbol: string): void {
    if (!this.acceptSymbol(symbol)) this.fail(`expected '${symbol}'`)
  }

  private refuseUnsupportedWord(): void {
    if (this.token.type !== 'ident') return
    const feature = UNSUPPORTED_CLAUSES[this.token.value.toUpperCase()]
    if (feature) throw unsupported(feature)
  }

  /** An identifier that names something (a table, an alias): plain but not a keyword, or quoted. */
  private name(what: string): string {
    const t = this.token
    if (t.type === 'quoted' || (t.type === 'ident' && !KEYWORDS.has(t.value.toUpperCase()))) {
      this.index++
      return t.value
    }
    return this.fail(`expected ${what}`)
  }

  private optionalAlias(): string | undefined {
    if (this.acceptWord('AS')) return this.name('an alias')
    const t = this.token
    if (t.type === 'quoted') return this.name('an alias')
    if (
      t.type === 'ident' &&
      !KEYWORDS.has(t.value.toUpperCase()) &&
      !UNSUPPORTED_CLAUSES[t.value.toUpperCase()]
    ) {
      return this.name('an alias')
    }
    return undefined
  }

  private nonNegativeInteger(what: string): number {
    const t = this.token
    if (t.type !== 'number' || !/^\d+$/.test(t.value)) this.fail(`expected a whole number for ${what}`)
    this.index++
    return Number(t.value)
  }

  parseQuery(): SelectQuery {
    this.refuseUnsupportedWord()
    this.expectWord('SELECT')
    const distinct = this.acceptWord('DISTINCT')
    const select: SelectItem[] = []
    do {
      if (this.acceptSymbol('*')) select.push({})
      else {
        const expr = this.expression()
        const alias = this.optionalAlias()
        select.push(alias === undefined ? { expr } : { expr, alias })
      }
    } while (this.acceptSymbol(','))
    this.refuseUnsupportedWord()
    this.expectWord('FROM')
    if (this.isSymbol('(')) throw unsupported('Subqueries')
    const table = this.name('a table name')
    this.refuseUnsupportedWord()
    const tableAlias = this.optionalAlias()
    this.refuseUnsupportedWord()
    const where = this.acceptWord('WHERE') ? this.expression() : undefined
    const groupBy: Expr[] = []
    if (this.acceptWord('GROUP')) {
      this.expectWord('BY')
      do groupBy.push(this.expression())
      while (this.acceptSymbol(','))
    }
    const having = this.acceptWord('HAVING') ? this.expression() : undefined
    const orderBy: OrderItem[] = []
    if (this.acceptWord('ORDER')) {
      this.expectWord('BY')
      do orderBy.push(this.orderItem())
      while (this.acceptSymbol(','))
    }
    let limit: number | undefined
    let offset: number | undefined
    if (this.acceptWord('LIMIT')) {
      limit = this.nonNegativeInteger('LIMIT')
      if (this.acceptSymbol(',')) {
        offset = limit
        limit = this.nonNegativeInteger('LIMIT')
      } else if (this.acceptWord('OFFSET')) {
        offset = this.nonNegativeInteger('OFFSET')
      }
      if (this.isWord('BY')) throw unsupported('LIMIT … BY')
      if (this.isWord('WITH')) throw unsupported('LIMIT … WITH TIES')
    }
    if (offset === undefined && this.acceptWord('OFFSET')) offset = this.nonNegativeInteger('OFFSET')
    this.refuseUnsupportedWord()
    if (this.token.type !== 'eof') this.fail('expected end of query')
    return {
      distinct,
      select,
      from: tableAlias === undefined ? { table } : { table, alias: tableAlias },
      ...(where ? { where } : {}),
      groupBy,
      ...(having ? { having } : {}),
      orderBy,
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
    }
  }

  private orderItem(): OrderItem {
    const expr = this.expression()
    if (expr.kind === 'literal' && typeof expr.value === 'number')
      throw unsupported('ORDER BY a column position')
    const desc = this.acceptWord('DESC') || this.acceptWord('DESCENDING')
    if (!desc && !this.acceptWord('ASC')) this.acceptWord('ASCENDING')
    let nullsFirst = false
    if (this.acceptWord('NULLS')) {
      if (this.acceptWord('FIRST')) nullsFirst = true
      else this.expectWord('LAST')
    }
    return { expr, desc, nullsFirst }
  }

  expression(): Expr {
    return this.or()
  }

  private or(): Expr {
    const items = [this.and()]
    while (this.acceptWord('OR')) items.push(this.and())
    return items.length === 1 ? (items[0] as Expr) : { kind: 'or', items }
  }

  private and(): Expr {
    const items = [this.not()]
    while (this.acceptWord('AND')) items.push(this.not())
    return items.length === 1 ? (items[0] as Expr) : { kind: 'and', items }
  }

  private not(): Expr {
    if (this.acceptWord('NOT')) return { kind: 'not', expr: this.not() }
    return this.comparison()
  }

  private comparison(): Expr {
    const left = this.additive()
    const t = this.token
    if (t.type === 'symbol' && ['=', '==', '!=', '<>', '<', '<=', '>', '>='].includes(t.value)) {
      this.index++
      const op = (t.value === '==' ? '=' : t.value === '<>' ? '!=' : t.value) as ComparisonOp
      return { kind: 'compare', op, left, right: this.additive() }
    }
    if (this.acceptWord('IS')) {
      const negated = this.acceptWord('NOT')
      this.expectWord('NULL')
      return { kind: 'isNull', expr: left, negated }
    }
    const negated =
      this.isWord('NOT') && (this.isWord('IN', 1) || this.isWord('LIKE', 1) || this.isWord('ILIKE', 1))
    if (negated) this.index++
    if (this.acceptWord('IN')) return { kind: 'in', expr: left, list: this.inList(), negated }
    if (this.isWord('LIKE') || this.isWord('ILIKE')) {
      const caseInsensitive = this.isWord('ILIKE')
      this.index++
      return { kind: 'like', expr: left, pattern: this.additive(), caseInsensitive, negated }
    }
    if (this.acceptWord('BETWEEN')) {
      const low = this.additive()
      this.expectWord('AND')
      const high = this.additive()
      return {
        kind: 'and',
        items: [
          { kind: 'compare', op: '>=', left, right: low },
          { kind: 'compare', op: '<=', left, right: high },
        ],
      }
    }
    return left
  }

  private inList(): Expr[] {
    this.expectSymbol('(')
    if (this.isWord('SELECT')) throw unsupported('Subqueries')
    const list: Expr[] = []
    if (!this.isSymbol(')')) {
      do list.push(this.expression())
      while (this.acceptSymbol(','))
    }
    this.expectSymbol(')')
    return list
  }

  private additive(): Expr {
    let left = this.multiplicative()
    while (this.isSymbol('+') || this.isSymbol('-')) {
      const op = this.token.value as '+' | '-'
      this.index++
      left = { kind: 'arithmetic', op, left, right: this.multiplicative() }
    }
    return left
  }

  private multiplicative(): Expr {
    let left = this.unary()
    while (this.isSymbol('*') || this.isSymbol('/') || this.isSymbol('%')) {
      const op = this.token.value as '*' | '/' | '%'
      this.index++
      left = { kind: 'arithmetic', op, left, right: this.unary() }
    }
    return left
  }

  private unary(): Expr {
    if (this.acceptSymbol('-')) {
      const inner = this.unary()
      if (inner.kind === 'literal' && typeof inner.value === 'number')
        return { kind: 'literal', value: -inner.value }
      return { kind: 'negate', expr: inner }
    }
    return this.primary()
  }

  private primary(): Expr {
    const t = this.token
    if (t.type === 'number') {
      this.index++
      return { kind: 'literal', value: Number(t.value) }
    }
    if (t.type === 'string') {
      this.index++
      return { kind: 'literal', value: t.value }
    }
    if (this.acceptSymbol('(')) {
      if (this.isWord('SELECT')) throw unsupported('Subqueries')
      const inner = this.expression()
      if (this.isSymbol(',')) throw unsupported('Tuples')
      this.expectSymbol(')')
      return inner
    }
    if (t.type === 'ident') {
      const upper = t.value.toUpperCase()
      if (upper === 'NULL' || upper === 'TRUE' || upper === 'FALSE') {
        this.index++
        return { kind: 'literal', value: upper === 'NULL' ? null : upper === 'TRUE' }
      }
      const feature = UNSUPPORTED_CLAUSES[upper]
      if (feature && (upper === 'CASE' || upper === 'INTERVAL')) throw unsupported(feature)
      if (KEYWORDS.has(upper)) this.fail('expected an expression')
    }
    if (t.type === 'ident' || t.type === 'quoted') return this.fieldOrCall()
    return this.fail('expected an expression')
  }

  private fieldOrCall(): Expr {
    const first = this.token
    this.index++
    if (first.type === 'ident' && this.acceptSymbol('(')) return this.call(first.value)
    const chain = [first.value]
    while (this.acceptSymbol('.')) {
      const t = this.token
      if (t.type !== 'ident' && t.type !== 'quoted') this.fail('expected a field name after "."')
      this.index++
      chain.push(t.value)
    }
    if (this.isSymbol('(')) throw unsupported('Calling a qualified name')
    return { kind: 'field', chain }
  }

  private call(name: string): Expr {
    const distinct = this.acceptWord('DISTINCT')
    const args: Expr[] = []
    if (this.acceptSymbol('*')) {
      if (name.toLowerCase() !== 'count') this.fail(`'*' is only allowed in count(*)`)
    } else if (!this.isSymbol(')')) {
      do args.push(this.expression())
      while (this.acceptSymbol(','))
    }
    this.expectSymbol(')')
    if (this.isSymbol('(')) throw unsupported('Parametric aggregate functions')
    if (this.isWord('OVER')) throw unsupported('Window functions (OVER)')
    return { kind: 'call', name, args, distinct }
  }
}

/** Parses one HogQL SELECT of the supported subset, refusing (never guessing at) anything else. */
export function parseHogQL(text: string): SelectQuery {
  return new Parser(text).parseQuery()
}
