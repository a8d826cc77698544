import { AjvCompiler } from '@fastify/ajv-compiler'
import type { FastifyServerOptions } from 'fastify'
import type { NumericBounds } from '../errors.js'
import type { AjvError } from './errors.js'

type BuildValidator = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>
type PoolOptions = Parameters<ReturnType<typeof AjvCompiler>>[1]
/**
 * A validator compiled on its first use, not at start-up: the server registers a few hundred route schemas
 * and compiling them all took most of a second of every start, for routes a process may never serve.
 * Fastify hands Ajv validators (which have `schemaEnv`) the request as parent data so a root value can be
 * coerced; the wrapper says it is one and passes that through, and exposes the real validator's errors.
 * `precheck` looks at the data before the validator coerces it.
 */
function compiledOnFirstUse<V extends object>(
  compile: () => V,
  precheck: (data: unknown) => AjvError | undefined,
): V {
  type Validate = (data: unknown, ctx?: unknown) => unknown
  let real: Validate | undefined
  const validate = ((data: unknown, ctx?: unknown) => {
    const refused = precheck(data)
    if (refused) {
      validate.errors = [refused]
      return false
    }
    real ??= compile() as unknown as Validate
    const result = real(data, ctx)
    validate.errors = (real as { errors?: unknown }).errors
    return result
  }) as Validate & { errors?: unknown; schemaEnv?: unknown }
  validate.schemaEnv = true
  return validate as unknown as V
}

/** Decimal text, the only text a numeric URL value may be. */
const DECIMAL: Readonly<Record<string, RegExp>> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ }

/**
 * Numeric URL values refused unless written in decimal. Ajv coerces text as JavaScript's Number does:
 * `limit=0x10` was read as 16, and `1e2`, ` 16` and `0b1` passed too, while `1e309` became Infinity, which
 * then passed `maximum` (Ajv 8 with coerceTypes) and reached SQLite as a page size (a 500). Ajv has no
 * option to coerce decimal text only, hence this check of each top-level numeric property, by hand,
 * before Ajv coerces: its refusal is a `type` error, answered with the range the schema allows.
 */
function decimalOnly(schema: unknown): (data: unknown) => AjvError | undefined {
  const properties = (schema as { properties?: Record<string, NumericBounds> } | undefined)?.properties
  const numeric = Object.entries(properties ?? {}).filter(([, p]) => DECIMAL[String(p.type)] !== undefined)
  if (numeric.length === 0) return () => undefined
  return (data) => {
    if (data === null || typeof data !== 'object') return undefined
    for (const [name, property] of numeric) {
      const value = (data as Record<string, unknown>)[name]
      // A number given more than once (`limit=1&limit=2`): said so, where Ajv's refusal of the list named the
      // range, which each value may well be in.
      if (Array.isArray(value) && value.length > 1)
        return { instancePath: `/${name}`, keyword: 'givenOnce', params: {}, message: 'must be given once' }
      const pattern = DECIMAL[String(property.type)]
      for (const v of Array.isArray(value) ? value : [value]) {
        if (typeof v !== 'string' || (pattern?.test(v) && Number.isFinite(Number(v)))) continue
        const type = String(property.type)
        return { instancePath: `/${name}`, keyword: 'type', params: { type }, parentSchema: property }
      }
    }
    return undefined
  }
}

/**
 * Query strings only carry text, so their values are coerced to the schema's types (`limit=5`, repeated
 * `fields`). JSON bodies carry real types, so there a `"5"` for a number or `"analytics"` for an array is
 * refused, not silently converted: one Ajv configuration cannot do both, hence two.
 */
export function buildValidatorPerPart(): BuildValidator {
  const lenientPool = AjvCompiler()
  const strictPool = AjvCompiler()
  return (externalSchemas, options) => {
    const base = (options ?? { customOptions: {} }) as PoolOptions & {
      customOptions: Record<string, unknown>
    }
    const strictOptions = {
      ...base,
      customOptions: { ...base.customOptions, coerceTypes: false },
    } as PoolOptions
    // The Ajv instances (one per part and plugin scope, each loading every shared schema) are made when a
    // first route is validated too, not when the scope registers.
    type Compile = ReturnType<typeof lenientPool>
    let lenient: Compile | undefined
    let strict: Compile | undefined
    return (route: Parameters<Compile>[0]) =>
      compiledOnFirstUse(
        () => {
          if (route.httpPart === 'body') {
            strict ??= strictPool(externalSchemas, strictOptions)
            return strict(route)
          }
          lenient ??= lenientPool(externalSchemas, base)
          return lenient(route)
        },
        route.httpPart === 'body' ? () => undefined : decimalOnly(route.schema),
      )
  }
}
