import { AjvCompiler } from '@fastify/ajv-compiler'
import type { FastifyServerOptions } from 'fastify'

type BuildValidator = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>
type PoolOptions = Parameters<ReturnType<typeof AjvCompiler>>[1]
/**
 * A validator compiled on its first use, not at start-up: the server registers a few hundred route schemas
 * and compiling them all took most of a second of every start, for routes a process may never serve.
 * Fastify hands Ajv validators (which have `schemaEnv`) the request as parent data so a root value can be
 * coerced; the wrapper says it is one and passes that through, and exposes the real validator's errors.
 */
function compiledOnFirstUse<V extends object>(compile: () => V, finiteOnly: boolean): V {
  type Validate = (data: unknown, ctx?: unknown) => unknown
  let real: Validate | undefined
  const validate = ((data: unknown, ctx?: unknown) => {
    real ??= compile() as unknown as Validate
    const result = real(data, ctx)
    validate.errors = (real as { errors?: unknown }).errors
    if (result === true && finiteOnly) {
      const infinite = infiniteValueOf(data)
      if (infinite !== undefined) {
        validate.errors = [
          { instancePath: `/${infinite}`, keyword: 'type', params: {}, message: 'must be a finite number' },
        ]
        return false
      }
    }
    return result
  }) as Validate & { errors?: unknown; schemaEnv?: unknown }
  validate.schemaEnv = true
  return validate as unknown as V
}

/**
 * The name of a top-level value that coercion made infinite, if any. Ajv coerces `limit=1e309` to Infinity and
 * then lets it past `maximum` (Ajv 8 with coerceTypes: the coerced Infinity passes a bound a given one fails),
 * so a route read Infinity as a page size and SQLite refused it: a 500 where the caller's value was at fault.
 */
function infiniteValueOf(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object') return undefined
  for (const [name, value] of Object.entries(data)) {
    if (typeof value === 'number' && !Number.isFinite(value)) return name
  }
  return undefined
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
      compiledOnFirstUse(() => {
        if (route.httpPart === 'body') {
          strict ??= strictPool(externalSchemas, strictOptions)
          return strict(route)
        }
        lenient ??= lenientPool(externalSchemas, base)
        return lenient(route)
      }, route.httpPart !== 'body')
  }
}
