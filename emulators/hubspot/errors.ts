import { randomUUID } from 'node:crypto'
import type { FastifyError, FastifyInstance } from 'fastify'
import type { FaultResponse } from '../kit/index.js'

/**
 * HubSpot's error body: `{status: "error", message, correlationId, category}` plus optional `errors`,
 * `context`, `subCategory` (HubSpot/HubSpot-public-api-spec-collection@99893791383254f52aa07662baeb98aad65cc710:
 * PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json, components.schemas.Error;
 * https://developers.hubspot.com/docs/api/error-handling).
 */
export class HubspotHttpError extends Error {
  constructor(
    readonly status: number,
    readonly category: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  body(): Record<string, unknown> {
    return {
      status: 'error',
      message: this.message,
      correlationId: randomUUID(),
      category: this.category,
      ...this.extra,
    }
  }
}

export const validation = (message: string, extra: Record<string, unknown> = {}) =>
  new HubspotHttpError(400, 'VALIDATION_ERROR', message, extra)

export const objectNotFound = () => new HubspotHttpError(404, 'OBJECT_NOT_FOUND', 'resource not found')

/**
 * A 429 names the limit hit in `policyName` (`TEN_SECONDLY_ROLLING`, `SECONDLY`, `DAILY`) with
 * `errorType: RATE_LIMIT` (platform usage guidelines,
 * https://developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines).
 */
export function rateLimited(policyName: string, headers: Record<string, string> = {}): HubspotHttpError {
  const which =
    policyName === 'DAILY' ? 'daily' : policyName === 'SECONDLY' ? 'secondly' : 'ten_secondly_rolling'
  return new HubspotHttpError(
    429,
    'RATE_LIMITS',
    `You have reached your ${which} limit.`,
    { errorType: 'RATE_LIMIT', policyName, requestId: randomUUID() },
    headers,
  )
}

export function hubspotFaultResponse(status: number): FaultResponse {
  if (status === 429) {
    const e = rateLimited('TEN_SECONDLY_ROLLING')
    return { body: e.body() }
  }
  if (status === 401)
    return {
      body: new HubspotHttpError(
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found.',
      ).body(),
    }
  return { body: new HubspotHttpError(status, 'INTERNAL_ERROR', 'internal error').body() }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof HubspotHttpError) return reply.code(err.status).headers(err.headers).send(err.body())
    if (err.statusCode && err.statusCode < 500) {
      return reply
        .code(err.statusCode)
        .send(new HubspotHttpError(err.statusCode, 'VALIDATION_ERROR', err.message).body())
    }
    return reply.code(500).send(new HubspotHttpError(500, 'INTERNAL_ERROR', 'internal error').body())
  })
  // What api.hubapi.com answers for an unknown path is not documented: HubSpot's error body, naming it.
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        new HubspotHttpError(404, 'OBJECT_NOT_FOUND', `no route ${request.method} ${request.url}`).body(),
      ),
  )
}
