import type { FastifyInstance } from 'fastify'
import { drfError, PosthogHttpError } from '../errors.js'
import { ingestEvent } from '../ingest.js'
import type { PosthogState } from '../state.js'

/**
 * Public ingestion endpoints: no auth header, the project API key travels in the body as `api_key` or
 * `token`, for one event or a `batch` (https://posthog.com/docs/api/capture;
 * PostHog/posthog@master:posthog/api/capture.py `get_token`).
 */
export const CAPTURE_PATHS = ['/i/v0/e', '/e', '/capture', '/batch', '/track'] as const

const asObject = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}

function eventsOf(body: unknown): Record<string, unknown>[] {
  if (Array.isArray(body)) return body.map(asObject)
  const b = asObject(body)
  if (Array.isArray(b.batch)) return b.batch.map(asObject)
  return [b]
}

function tokenOf(body: unknown, events: readonly Record<string, unknown>[]): string | undefined {
  const b = asObject(body)
  const first = events[0] ?? {}
  for (const candidate of [
    b.api_key,
    b.token,
    first.api_key,
    first.token,
    asObject(first.properties).token,
  ]) {
    if (typeof candidate === 'string' && candidate !== '') return candidate
  }
  return undefined
}

export function registerCaptureRoutes(app: FastifyInstance, state: PosthogState): void {
  for (const path of CAPTURE_PATHS) {
    app.post(path, async (request) => {
      const events = eventsOf(request.body)
      const token = tokenOf(request.body, events)
      if (token === undefined) {
        throw new PosthogHttpError(
          401,
          drfError(
            'authentication_error',
            'missing_api_key',
            'API key not provided. You can find your project API key in PostHog project settings.',
          ),
        )
      }
      const data = state.projectByToken(token)
      if (!data) {
        throw new PosthogHttpError(
          401,
          drfError(
            'authentication_error',
            'invalid_api_key',
            'Project API key invalid. You can find your project API key in PostHog project settings.',
          ),
        )
      }
      const receivedAt = Date.now()
      for (const event of events) ingestEvent(state, data, event, receivedAt)
      return { status: 'Ok' }
    })
  }
}
