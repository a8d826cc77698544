import { AjvCompiler } from '@fastify/ajv-compiler'
import type { FastifyServerOptions } from 'fastify'

type BuildValidator = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>
type PoolOptions = Parameters<ReturnType<typeof AjvCompiler>>[1]

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
    const lenient = lenientPool(externalSchemas, base)
    const strictOptions = {
      ...base,
      customOptions: { ...base.customOptions, coerceTypes: false },
    } as PoolOptions
    const strict = strictPool(externalSchemas, strictOptions)
    return (route) => (route.httpPart === 'body' ? strict(route) : lenient(route))
  }
}
