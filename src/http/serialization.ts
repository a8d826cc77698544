import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled on its first use rather than when
 * the server starts: every route's response schema was compiled at start-up (a sixth of its CPU), most of
 * them for routes a process may never answer, and the unified object routes write their JSON themselves.
 * What a serializer writes is unchanged: the same compiler, with the same options, called later.
 */
export function buildSerializerOnFirstUse(): BuildSerializer {
  const select = SerializerSelector()
  return (externalSchemas, options) => {
    let compiler: ReturnType<ReturnType<typeof SerializerSelector>> | undefined
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined
      return (data: unknown) => {
        compiler ??= select(externalSchemas, options)
        serialize ??= compiler(route) as (data: unknown) => string
        return serialize(data)
      }
    }
  }
}
