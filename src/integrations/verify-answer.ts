import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { ProviderClient, ProviderRequest } from './http-client.js'

/**
 * A verification call answered 2xx with a body that is not the provider's documented answer to it: the
 * address is not that provider (any JSON service answering `{}` would otherwise verify, and credentials
 * would be stored for it). Carries only the call, never what was answered (DESIGN 9: nothing echoes what
 * an internal address answered).
 */
export class UnexpectedVerifyAnswer extends Error {
  constructor(readonly call: string) {
    super(`the answer to ${call} does not have the documented shape`)
    this.name = 'UnexpectedVerifyAnswer'
  }
}

/** `answer` as `schema` types it, or UnexpectedVerifyAnswer naming `call` (`GET /websites`). */
export function verifyAnswer<T extends TSchema>(call: string, schema: T, answer: unknown): Static<T> {
  if (!Value.Check(schema, answer)) throw new UnexpectedVerifyAnswer(call)
  return answer
}

/**
 * Sends a verification call and checks its 2xx answer against the shape the provider documents for it.
 * `call` names it in the error (default: the method and path); a path built from an earlier answer (an id
 * the provider gave) must be named by its template instead, or the error would echo that answer.
 */
export async function verifyCall<T extends TSchema>(
  client: ProviderClient,
  req: ProviderRequest,
  schema: T,
  call = `${req.method ?? 'GET'} ${req.path}`,
): Promise<Static<T>> {
  return verifyAnswer(call, schema, await client.json(req))
}
