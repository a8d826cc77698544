import type { FastifyInstance } from 'fastify'
import { SeededRandom } from '../../kit/index.js'
import { notFound } from '../errors.js'
import type { PosthogState } from '../state.js'
import { PROJECT_SCOPED_PREFIXES, type ProjectParams, projectOf } from './scope.js'

/** A tiny valid PNG header followed by seeded bytes: a binary body whose every byte matters. */
export function exportedImage(seed: number): Buffer {
  const random = new SeededRandom(seed)
  const header = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const body = Buffer.alloc(4096)
  for (let i = 0; i < body.length; i++) body[i] = i < 256 ? i : random.uint32() & 0xff
  return Buffer.concat([header, body])
}

/**
 * `GET /api/projects/{pid}/exports/{id}/content/`: an exported asset's file (PostHog renders insights and
 * dashboards to PNG or CSV). Each project has one seeded PNG export, id 1.
 */
export function registerExportRoutes(app: FastifyInstance, state: PosthogState): void {
  for (const prefix of PROJECT_SCOPED_PREFIXES) {
    app.get(`${prefix}/exports/:id/content`, async (request, reply) => {
      const { projectId, id } = request.params as ProjectParams & { id: string }
      const project = projectOf(state, projectId, request.url)
      if (id !== '1') throw notFound()
      return reply
        .header('content-type', 'image/png')
        .header('content-disposition', `attachment; filename="export-${project.project.id}-1.png"`)
        .send(exportedImage(project.project.id))
    })
  }
}
