export type Literal = string | number | boolean | null

export type ComparisonOp = '=' | '!=' | '<' | '<=' | '>' | '>='
export type ArithmeticOp = '+' | '-' | '*' | '/' | '%'

export type Expr =
  | { readonly kind: 'literal'; readonly value: Literal }
  | { readonly kind: 'field'; readonly chain: readonly string[] }
  | {
      readonly kind: 'call'
      readonly name: string
      readonly args: readonly Expr[]
      readonly distinct: boolean
    }
  | { readonly kind: 'compare'; readonly op: ComparisonOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'arithmetic'; readonly op: ArithmeticOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'and' | 'or'; readonly items: readonly Expr[] }
  | { readonly kind: 'not'; readonly expr: Expr }
  | { readonly kind: 'negate'; readonly expr: Expr }
  | { readonly kind: 'in'; readonly expr: Expr; readonly list: readonly Expr[]; readonly negated: boolean }
  | {
      readonly kind: 'like'
      readonly expr: Expr
      readonly pattern: Expr
      readonly caseInsensitive: boolean
      readonly negated: boolean
    }
  | { readonly kind: 'isNull'; readonly expr: Expr; readonly negated: boolean }

export interface SelectItem {
  /** Undefined for `*`. */
  readonly expr?: Expr
  readonly alias?: string
}

export interface OrderItem {
  readonly expr: Expr
  readonly desc: boolean
  readonly nullsFirst: boolean
}

export interface SelectQuery {
  readonly distinct: boolean
  readonly select: readonly SelectItem[]
  readonly from: { readonly table: string; readonly alias?: string }
  readonly where?: Expr
  readonly groupBy: readonly Expr[]
  readonly having?: Expr
  readonly orderBy: readonly OrderItem[]
  readonly limit?: number
  readonly offset?: number
}

function printLiteral(value: Literal): string {
  if (value === null) return 'NULL'
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
  return String(value)
}

function printName(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
    ? name
    : `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``
}

/** Canonical HogQL text of an expression: names result columns and matches SELECT terms to GROUP BY keys. */
export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'literal':
      return printLiteral(e.value)
    case 'field':
      return e.chain.map(printName).join('.')
    case 'call':
      return `${e.name}(${e.distinct ? 'DISTINCT ' : ''}${e.args.map(printExpr).join(', ')})`
    case 'compare':
    case 'arithmetic':
      return `${printExpr(e.left)} ${e.op} ${printExpr(e.right)}`
    case 'and':
    case 'or':
      return `(${e.items.map(printExpr).join(` ${e.kind.toUpperCase()} `)})`
    case 'not':
      return `NOT ${printExpr(e.expr)}`
    case 'negate':
      return `-${printExpr(e.expr)}`
    case 'in':
      return `${printExpr(e.expr)} ${e.negated ? 'NOT IN' : 'IN'} (${e.list.map(printExpr).join(', ')})`
    case 'like':
      return `${printExpr(e.expr)} ${e.negated ? 'NOT ' : ''}${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${printExpr(e.pattern)}`
    case 'isNull':
      return `${printExpr(e.expr)} IS ${e.negated ? 'NOT ' : ''}NULL`
  }
}
