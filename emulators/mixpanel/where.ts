/**
 * The subset of Mixpanel's segmentation expressions (mixpanel/docs@ba22906:reference/segmentation-expressions.mdx) this
 * emulator evaluates: `properties["k"] == "v"`,
 * `"v" in properties["k"]` (substring), `"v" in (properties["a"] + " " + properties["b"])` (`+` of two
 * strings concatenates them; of anything else, a missing property too, it is undefined, and `in` of
 * undefined is not true: same page, "Binary Operations"), joined by `and` / `or` (and binds tighter).
 * Anything else is a parse error, as Mixpanel answers for an expression it cannot read.
 */
export class WhereError extends Error {}

type Props = Readonly<Record<string, unknown>>
type Test = (p: Props) => boolean

const STRING = String.raw`"(?:[^"\\]|\\.)*"`
const PROP = String.raw`properties\[(${STRING})\]`
const OPERAND = String.raw`(?:properties\[${STRING}\]|${STRING})`
const CONCAT = String.raw`\(\s*${OPERAND}(?:\s*\+\s*${OPERAND})+\s*\)`
const TERM = new RegExp(
  String.raw`^\s*(?:${PROP}\s*==\s*(${STRING})|(${STRING})\s+in\s+${PROP}|(${STRING})\s+in\s+(${CONCAT}))\s*`,
)
const OPERANDS = new RegExp(String.raw`properties\[(${STRING})\]|(${STRING})`, 'g')
const JOIN = /^(and|or)\b\s*/

function unquote(s: string): string {
  try {
    return JSON.parse(s) as string
  } catch {
    throw new WhereError(`invalid string literal ${s}`)
  }
}

/** `"needle" in (a + b + …)`: the operands concatenated, each a property holding a string or a literal. */
function concatIn(needle: string, concat: string): Test {
  const parts = [...concat.matchAll(OPERANDS)].map((m) =>
    m[1] !== undefined ? { property: unquote(m[1]) } : { literal: unquote(m[2] as string) },
  )
  return (p) => {
    let joined = ''
    for (const part of parts) {
      const value = 'literal' in part ? part.literal : p[part.property]
      if (typeof value !== 'string') return false
      joined += value
    }
    return joined.includes(needle)
  }
}

export function compileWhere(expression: string | undefined): Test {
  if (expression === undefined || expression.trim() === '') return () => true
  let rest = expression
  const groups: Test[][] = [[]]
  for (;;) {
    const m = TERM.exec(rest)
    if (!m) throw new WhereError(`Failed to parse expression: ${expression}`)
    rest = rest.slice(m[0].length)
    const test: Test =
      m[5] !== undefined
        ? concatIn(unquote(m[5]), m[6] as string)
        : m[1] !== undefined
          ? (
              (key, value) => (p: Props) =>
                String(p[key] ?? '') === value
            )(unquote(m[1]), unquote(m[2] as string))
          : (
              (needle, key) => (p: Props) =>
                String(p[key] ?? '').includes(needle)
            )(unquote(m[3] as string), unquote(m[4] as string))
    groups[groups.length - 1]?.push(test)
    if (rest.trim() === '') break
    const j = JOIN.exec(rest)
    if (!j) throw new WhereError(`Failed to parse expression: ${expression}`)
    rest = rest.slice(j[0].length)
    if (j[1] === 'or') groups.push([])
  }
  return (p) => groups.some((g) => g.every((t) => t(p)))
}
